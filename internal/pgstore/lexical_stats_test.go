package pgstore_test

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestStatsMismatchesRebuild: every kind of damage to the statistics rows
// (a wrong count, a wrong length, a wrong, missing or extra document
// frequency, a row of a resource with no entry) is reported for its
// resource, and RebuildStats repairs all of it; a second rebuild changes
// nothing.
func TestStatsMismatchesRebuild(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	pool := mustOpen(t, dsn)
	seedMessages(t, pool, []string{"A", "B", "C"}, 3)
	var docs []pgstore.LexicalDoc
	for _, r := range []string{"A", "B", "C"} {
		for i := range 3 {
			docs = append(docs, pgstore.LexicalDoc{MessageID: fmt.Sprintf("%s-%d", r, i), ResourceID: r, Terms: []string{"alpha", "beta", fmt.Sprint("w", i)}, AnswerBits: uint8(i)})
		}
	}
	if err := pgstore.PutLexical(ctx, pool, docs); err != nil {
		t.Fatal(err)
	}
	if ms, err := pgstore.StatsMismatches(ctx, pool, 10); err != nil || len(ms) != 0 {
		t.Fatalf("StatsMismatches on sound statistics = %+v, %v", ms, err)
	}
	for _, q := range []string{
		`UPDATE lexical_stats SET docs = docs + 1 WHERE resource_id = 'A'`,
		`UPDATE lexical_stats SET total_len = total_len - 2 WHERE resource_id = 'A'`,
		`UPDATE lexical_df SET df = 7 WHERE resource_id = 'B' AND term = 'alpha'`,
		`DELETE FROM lexical_df WHERE resource_id = 'B' AND term = 'w1'`,
		`INSERT INTO lexical_df VALUES ('B', 'ghost', 1)`,
		`INSERT INTO lexical_stats VALUES ('Z', 4, 9)`,
		`UPDATE lexical_stats SET time_docs = time_docs + 5 WHERE resource_id = 'C'`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := pgstore.StatsMismatches(ctx, pool, 10)
	if err != nil {
		t.Fatal(err)
	}
	types := [pgstore.AnswerTypes]int64{1, 1, 0} // each resource: a duration (1), a time (2)
	want := []pgstore.StatsMismatch{
		{ResourceID: "A", Docs: 4, CountedDocs: 3, TotalLen: 7, CountedLen: 9, AnswerDF: types, CountedAnswerDF: types},
		{ResourceID: "B", Docs: 3, CountedDocs: 3, TotalLen: 9, CountedLen: 9, Terms: 3, AnswerDF: types, CountedAnswerDF: types},
		{ResourceID: "C", Docs: 3, CountedDocs: 3, TotalLen: 9, CountedLen: 9, AnswerDF: [pgstore.AnswerTypes]int64{1, 6, 0}, CountedAnswerDF: types},
		{ResourceID: "Z", Docs: 4, TotalLen: 9},
	}
	if fmt.Sprint(ms) != fmt.Sprint(want) {
		t.Fatalf("StatsMismatches = %+v, want %+v", ms, want)
	}
	if ms, err := pgstore.StatsMismatches(ctx, pool, 1); err != nil || len(ms) != 1 || ms[0].ResourceID != "A" {
		t.Fatalf("StatsMismatches(limit 1) = %+v, %v", ms, err)
	}

	db, err := pgstore.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	rebuild := func() int64 {
		t.Helper()
		tx, err := db.BeginTx(ctx, &sql.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n, err := pgstore.RebuildStats(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rebuild(); n != 6 {
		t.Fatalf("RebuildStats changed %d rows, want 6 (A, C, Z; B's alpha, w1, ghost)", n)
	}
	if ms, err := pgstore.StatsMismatches(ctx, pool, 10); err != nil || len(ms) != 0 {
		t.Fatalf("StatsMismatches after RebuildStats = %+v, %v", ms, err)
	}
	if n, err := statsMismatches(ctx, pool); err != nil || n != 0 {
		t.Fatalf("statistics rows differing from a recount: %d (%v)", n, err)
	}
	if n := rebuild(); n != 0 {
		t.Fatalf("second RebuildStats changed %d rows, want 0", n)
	}
}

// TestStatsMismatchesByteOrder: the resources StatsMismatches keeps under
// its limit (those Check lists) are the first in byte order of their ids
// (B before a), even where the columns' collation is linguistic (ICU's
// "und-x-icu", a before B): they followed the collation before.
func TestStatsMismatchesByteOrder(t *testing.T) {
	ctx := t.Context()
	pool := mustOpen(t, pgtest.DSN(t))
	for _, q := range []string{
		`ALTER TABLE lexical_docs ALTER COLUMN resource_id TYPE text COLLATE "und-x-icu"`,
		`ALTER TABLE lexical_stats ALTER COLUMN resource_id TYPE text COLLATE "und-x-icu"`,
		`ALTER TABLE lexical_df ALTER COLUMN resource_id TYPE text COLLATE "und-x-icu"`,
		// Rows of resources with no entry: each one a mismatch.
		`INSERT INTO lexical_stats VALUES ('f', 1, 1), ('a', 1, 1), ('B', 1, 1)`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var lt bool
	if err := pool.QueryRow(ctx, `SELECT 'a' COLLATE "und-x-icu" < 'B' COLLATE "und-x-icu"`).Scan(&lt); err != nil || !lt {
		t.Fatalf(`"und-x-icu" does not order a before B (%v): this test could not fail`, err)
	}
	ms, err := pgstore.StatsMismatches(ctx, pool, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].ResourceID != "B" || ms[1].ResourceID != "a" {
		t.Fatalf("StatsMismatches(limit 2) = %+v, want B then a", ms)
	}
}
