package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

func TestErasedQuotedBy(t *testing.T) {
	ctx := context.Background()
	erased := journal.ErasedTexts(map[string]string{"m1": "  the secret plan  ", "m2": "   "})
	tests := []struct {
		query string
		want  bool
	}{
		{"the secret plan", true},           // equal
		{"secret", true},                    // quoted by the erased turn
		{"what was the secret plan?", true}, // quotes the erased turn
		{"", false},
		{"   ", false},
		{journal.ErasedPreview, false},
		{"something else", false}, // a blank erased content quotes nothing
	}
	for _, tc := range tests {
		if got, err := erased.QuotedBy(ctx, tc.query); err != nil || got != tc.want {
			t.Errorf("QuotedBy(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
	// Quoted looks for the id or the content as stored (untrimmed); a
	// blank content matches nothing.
	quoted := journal.ErasedTexts(map[string]string{"m1": "the secret plan", "m2": " "})
	for raw, want := range map[string]bool{`{"x":"m1"}`: true, `"the secret plan"`: true, `a b`: false, `nothing`: false} {
		if got, err := quoted.Quoted(ctx, []byte(raw)); err != nil || got != want {
			t.Errorf("Quoted(%q) = %v, want %v", raw, got, want)
		}
	}
}

// TestScrubMemCtx scrubs a resource's records: an erased turn's preview
// and a query quoting it become ErasedPreview, a corrupt record quoting
// it goes, another resource's record and the others stay; the runs of
// deleted threads are reported; a reference to a deleted thread's turn
// (from another thread's record) gets tombstones for its thread and
// message ids.
func TestScrubMemCtx(t *testing.T) { forEachBackend(t, testScrubMemCtx) }

func testScrubMemCtx(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	put := func(rec *journal.MemCtx) {
		t.Helper()
		if err := j.PutMemCtx(ctx, rec, false); err != nil {
			t.Fatal(err)
		}
	}
	put(&journal.MemCtx{RunID: "run-a", ThreadID: "t1", ResourceID: "r1", Query: "the secret plan",
		Recent: []journal.Ref{{ThreadID: "t1", Seq: 1, MessageID: "m1", Role: "user", Preview: "the secret plan"},
			{ThreadID: "t1", Seq: 2, MessageID: "m2", Role: "assistant", Preview: "kept"}},
		Recalled:     []journal.Ref{{ThreadID: "t2", Seq: 4, MessageID: "m-of-t2", Role: "user", Preview: "from t2"}},
		Observations: []journal.ObservationRef{{ID: "o1", ThreadID: "t2", FromSeq: 1, ToSeq: 4}},
		Options:      journal.Options{Filter: json.RawMessage(`{"$or":[{"threadId":{"$in":["t2","t1"]}},{"seq":{"$gte":12345678901234567}}]}`)}})
	put(&journal.MemCtx{RunID: "run-b", ThreadID: "t2", ResourceID: "r1", Query: "hello"})
	put(&journal.MemCtx{RunID: "run-c", ThreadID: "t1", ResourceID: "r2", Query: "the secret plan",
		Recent: []journal.Ref{{ThreadID: "t1", Seq: 1, MessageID: "m1", Preview: "the secret plan"}}})
	if _, err := store.Bound(db).ExecContext(ctx, `INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES (?, ?, ?, ?, ?, 0)`,
		journal.ScopeMemCtx, journal.MemCtxKey("run-x"), "t1", "r1", []byte(`{broken m1`)); err != nil {
		t.Fatal(err)
	}

	var n int
	var runs []string
	inTx(t, db, func(tx *store.Tx) (err error) {
		n, runs, err = journal.ScrubMemCtx(ctx, tx, "r1", journal.ErasedTexts(map[string]string{"m1": "the secret plan", "m-of-t2": "from t2"}),
			journal.Entomb{Of: func(id string) string { return "tomb:" + id }, Deleted: map[string]bool{"t2": true}})
		return err
	})
	if got, want := n, 2; got != want {
		t.Fatalf("changed=%d, want %d", got, want)
	}
	if !slices.Equal(runs, []string{"run-b"}) {
		t.Fatalf("runs of deleted threads = %v, want [run-b]", runs)
	}
	a, err := j.MemCtx(ctx, "run-a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Query != journal.ErasedPreview || a.Recent[0].Preview != journal.ErasedPreview || a.Recent[0].MessageID != "m1" || a.Recent[1].Preview != "kept" {
		t.Fatalf("run-a not scrubbed as expected: %+v", a)
	}
	if r := a.Recalled[0]; r.ThreadID != "tomb:t2" || r.MessageID != "tomb:m-of-t2" || r.Preview != journal.ErasedPreview || r.Seq != 4 || r.Role != "user" {
		t.Fatalf("run-a's reference to the deleted thread: %+v, want tombstones", r)
	}
	if o := a.Observations[0]; o.ThreadID != "tomb:t2" || o.ID != "o1" {
		t.Fatalf("run-a's observation of the deleted thread: %+v, want its thread entombed", o)
	}
	if f := string(a.Options.Filter); strings.Contains(f, `"t2"`) || !strings.Contains(f, `"tomb:t2"`) || !strings.Contains(f, `"t1"`) || !strings.Contains(f, "12345678901234567") {
		t.Fatalf("run-a's filter: %s, want t2 entombed and the rest as it was", f)
	}
	if _, err := j.RawMemCtx(ctx, "run-x"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("corrupt record quoting the erased turn: %v, want ErrNotFound", err)
	}
	if c, err := j.RawMemCtx(ctx, "run-c"); err != nil || !strings.Contains(string(c), "the secret plan") {
		t.Fatalf("another resource's record was touched: %s, %v", c, err)
	}
}

// TestEraseRecords covers the seq tombstones, a deleted thread's records,
// its runs and the erasure markers.
func TestEraseRecords(t *testing.T) { forEachBackend(t, testEraseRecords) }

func testEraseRecords(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	now := time.UnixMilli(1_700_000_000_000)
	if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: "run-1", ThreadID: "t1", ResourceID: "r1"}, false); err != nil {
		t.Fatal(err)
	}
	count := func(scope string) int {
		t.Helper()
		var n int
		if err := store.Bound(db).QueryRowContext(ctx, `SELECT COUNT(*) FROM journal WHERE scope = ?`, scope).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	inTx(t, db, func(tx *store.Tx) error {
		for i := 0; i < 2; i++ { // twice: a no-op the second time
			if err := journal.TombstoneSeq(ctx, tx, "t1", "r1", 3, now); err != nil {
				return err
			}
		}
		return journal.MarkErasing(ctx, tx, "marker-1", []byte(`{}`), now)
	})
	if got, want := count(journal.ScopeErased), 1; got != want {
		t.Fatalf("tombstones=%d, want %d", got, want)
	}
	if n, err := j.Erasing(ctx); err != nil || n != 1 {
		t.Fatalf("Erasing = %d, %v; want 1", n, err)
	}
	var runs int
	inTx(t, db, func(tx *store.Tx) (err error) {
		if err := journal.DeleteThread(ctx, tx, "t1"); err != nil {
			return err
		}
		runs, err = journal.DeleteRuns(ctx, tx, "t1", "r1")
		return err
	})
	if got := count(journal.ScopeErased); got != 0 || runs != 1 || count(journal.ScopeMemCtx) != 0 {
		t.Fatalf("after DeleteThread: tombstones=%d runs=%d memctx=%d, want 0 1 0", got, runs, count(journal.ScopeMemCtx))
	}
	if err := j.ClearErasing(ctx, "marker-1"); err != nil {
		t.Fatal(err)
	}
	if n, err := j.Erasing(ctx); err != nil || n != 0 {
		t.Fatalf("Erasing after ClearErasing = %d, %v; want 0", n, err)
	}
	// The run id stays claimed by its thread.
	if err := j.CheckRun(ctx, "run-1", "t2", "r1"); !errors.Is(err, journal.ErrRunOwned) {
		t.Fatalf("CheckRun after DeleteRuns: %v, want ErrRunOwned", err)
	}
}

// TestClearErasings: a purge that completed several erasures deletes
// exactly their markers (more than one statement's worth of them), never
// the marker of an erasure still under way.
func TestClearErasings(t *testing.T) { forEachBackend(t, testClearErasings) }

func testClearErasings(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	now := time.UnixMilli(1_700_000_000_000)
	var mine []string
	inTx(t, db, func(tx *store.Tx) error {
		for i := range 1203 {
			m := fmt.Sprintf("sweep-%04d", i)
			mine = append(mine, m)
			if err := journal.MarkErasing(ctx, tx, m, []byte(`{}`), now); err != nil {
				return err
			}
		}
		return journal.MarkErasing(ctx, tx, "other", []byte(`{}`), now)
	})
	if err := j.ClearErasings(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := j.Erasing(ctx); err != nil || n != 1204 {
		t.Fatalf("Erasing after ClearErasings(nil) = %d, %v; want 1204", n, err)
	}
	if err := j.ClearErasings(ctx, mine); err != nil {
		t.Fatal(err)
	}
	if n, err := j.Erasing(ctx); err != nil || n != 1 {
		t.Fatalf("Erasing after ClearErasings = %d, %v; want 1 (the other erasure's)", n, err)
	}
}

// TestErasedQuotesReadsOnce: Quotes answers every question with one read of
// the erased texts, stops reading once every question is answered, and
// does not read them when the ids answer everything.
func TestErasedQuotesReadsOnce(t *testing.T) {
	ctx := context.Background()
	texts := []string{"first text", "  the secret plan  ", "another", "last one"}
	reads, seen := 0, 0
	erased := journal.Erased{IDs: map[string]bool{"m1": true}, Texts: func(_ context.Context, fn func(string) bool) error {
		reads++
		for _, c := range texts {
			seen++
			if !fn(c) {
				return nil
			}
		}
		return nil
	}}
	quotedBy, quoted, err := erased.Quotes(ctx, []string{"secret", "first", "nothing", "   ", journal.ErasedPreview},
		[][]byte{[]byte(`{"q":"m1"}`), []byte(`"another"`), []byte(`x`)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(quotedBy["secret"], quotedBy["first"], quotedBy["nothing"], quotedBy["   "], quotedBy[journal.ErasedPreview]), "true true false false false"; got != want {
		t.Errorf("quotedBy = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(quoted), "[true true false]"; got != want {
		t.Errorf("quoted = %s, want %s", got, want)
	}
	if reads != 1 || seen != len(texts) {
		t.Errorf("texts read %d times, %d texts seen; want 1, %d", reads, seen, len(texts))
	}
	reads, seen = 0, 0
	if _, _, err := erased.Quotes(ctx, []string{"secret", "first"}, nil); err != nil || reads != 1 || seen != 2 {
		t.Errorf("the read went on after the last answer: %d texts seen (%v), want 2", seen, err)
	}
	reads = 0
	if _, quoted, err := erased.Quotes(ctx, []string{"  "}, [][]byte{[]byte("m1")}); err != nil || !quoted[0] || reads != 0 {
		t.Errorf("answered by the ids: quoted %v, %d reads (%v); want true, none", quoted, reads, err)
	}
}
