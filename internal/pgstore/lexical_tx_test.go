package pgstore_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestPutLexicalTx: PutLexicalTx on a database/sql transaction (the
// engine's) stores the rows PutLexical stores on pgx, terms in order with
// repeats, empty terms as an empty array; statistics follow; putting the
// same documents again rewrites no row; a changed one is replaced; one
// whose message is not stored is left out; a malformed one is refused with
// ErrInvalid and nothing written.
func TestPutLexicalTx(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	pool := mustOpen(t, dsn)
	db, err := pgstore.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	seedMessages(t, pool, []string{"A", "B"}, 4)
	texts := []string{"The running dogs can't stop, dogs!", "Résumé of Straße İstanbul", "", `quotes ' and " and \ and {"json": [1]}`}
	var docs []pgstore.LexicalDoc
	for _, r := range []string{"B", "A"} {
		for i, text := range texts {
			docs = append(docs, pgstore.LexicalDoc{MessageID: fmt.Sprintf("%s-%d", r, i), ResourceID: r, CreatedAt: int64(i) * 1000, Terms: recall.Analyze(text)})
		}
	}
	docs[7].Terms = []string{`it's`, `"quoted"`, `back\slash`, `{"a":1}`, "dogs", "dogs"}
	put := func(docs []pgstore.LexicalDoc) error {
		return store.RunTx(ctx, db, func(tx *store.Tx) error { return pgstore.PutLexicalTx(ctx, store.Bound(tx), docs) })
	}
	if err := put(docs); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		var terms []string
		var created int64
		var resource string
		if err := pool.QueryRow(ctx, `SELECT resource_id, created_at, terms FROM lexical_docs WHERE message_id = $1`, d.MessageID).Scan(&resource, &created, &terms); err != nil {
			t.Fatalf("%s: %v", d.MessageID, err)
		}
		want := d.Terms
		if want == nil {
			want = []string{}
		}
		if resource != d.ResourceID || created != d.CreatedAt || !slices.Equal(terms, want) || terms == nil {
			t.Fatalf("%s stored as %s, %d, %q; want %s, %d, %q", d.MessageID, resource, created, terms, d.ResourceID, d.CreatedAt, want)
		}
	}
	checkStats(t, pool, docs, "A")
	checkStats(t, pool, docs, "B")

	var before, after string
	pool.QueryRow(ctx, `SELECT string_agg(xmin::text, ',' ORDER BY message_id) FROM lexical_docs`).Scan(&before)
	if err := put(docs); err != nil {
		t.Fatal(err)
	}
	pool.QueryRow(ctx, `SELECT string_agg(xmin::text, ',' ORDER BY message_id) FROM lexical_docs`).Scan(&after)
	if before != after {
		t.Fatal("re-indexing unchanged documents rewrote rows")
	}
	docs[0].Terms = recall.Analyze("a completely different zebra zebra")
	if err := put(docs[:1]); err != nil {
		t.Fatal(err)
	}
	checkStats(t, pool, docs, docs[0].ResourceID)
	if err := put([]pgstore.LexicalDoc{{MessageID: "gone", ResourceID: "A", Terms: []string{"zebra"}}}); err != nil {
		t.Fatalf("a message that is not stored: %v, want it left out", err)
	}
	checkStats(t, pool, docs, "A")
	bad := []pgstore.LexicalDoc{{MessageID: "A-1", ResourceID: "A", Terms: []string{"ok"}}, {MessageID: "A-2", ResourceID: "A", Terms: []string{"nul\x00"}}}
	if err := put(bad); !errors.Is(err, pgstore.ErrInvalid) {
		t.Fatalf("a NUL term: %v, want ErrInvalid", err)
	}
	checkStats(t, pool, docs, "A")
}
