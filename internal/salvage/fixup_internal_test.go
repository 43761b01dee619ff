package salvage

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestRepair: on a real database of mnemo's schema holding what a copy of
// damaged tables leaves (seqs missing between and after stored ones, a
// thread whose row was lost, a message whose text does not match its
// digest, rows whose owner was lost), repair drops the garbled message
// and the orphans, writes the lost thread again from its messages,
// recomputes the counters and the newest message's time, and records as
// lost exactly the seqs neither stored, erased nor lost before.
func TestRepair(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil { // as copyAt writes
		t.Fatal(err)
	}
	pk := 0
	msg := func(thread string, seq int64, garbled bool) string {
		pk++
		content := fmt.Sprintf("message %d of %s", seq, thread)
		dg := msgstore.Digest("user", content, "", "", nil)
		if garbled {
			content = "garbled " + content
		}
		return fmt.Sprintf(`INSERT INTO messages (pk, id, thread_id, resource_id, seq, role, content, created_at, tokens, digest)
			VALUES (%d, 'm-%s-%d', '%s', 'r', %d, 'user', '%s', %d, 3, '%s')`, pk, thread, seq, thread, seq, content, 1000+pk, dg)
	}
	stmts := []string{
		// a: last_seq 10; 1, 2, 5, 9 stored, 3 erased, 7 lost to an
		// earlier salvage: 4, 6, 8 and 10 are lost now.
		`INSERT INTO threads (id, resource_id, created_at, updated_at, last_seq, message_count) VALUES ('a', 'r', 1, 9000, 10, 99)`,
		msg("a", 1, false), msg("a", 2, false), msg("a", 5, false), msg("a", 9, false),
		`INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES ('` + journal.ScopeErased + `', 'a:3', 'a', 'r', x'', 1)`,
		`INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES ('` + journal.ScopeLost + `', 'a:7', 'a', 'r', x'', 1)`,
		// b: its row lost, two messages kept: written again.
		msg("b", 1, false), msg("b", 2, false),
		// c: complete but message 2 garbled: dropped, 2 lost.
		`INSERT INTO threads (id, resource_id, created_at, updated_at, last_seq, message_count) VALUES ('c', 'r', 1, 1009, 3, 3)`,
		msg("c", 1, false), msg("c", 2, true), msg("c", 3, false),
		// d: nothing kept of its messages: 1..2 lost.
		`INSERT INTO threads (id, resource_id, created_at, updated_at, last_seq, message_count) VALUES ('d', 'r', 1, 9000, 2, 2)`,
		// Orphans: an embedding of no message, an observation of no thread.
		`INSERT INTO embeddings (message_id, embedder, resource_id, dims, vector) VALUES ('m-gone', 'hash-384', 'r', 0, x'')`,
		`INSERT INTO embeddings (message_id, embedder, resource_id, dims, vector) VALUES ('m-a-1', 'hash-384', 'r', 0, x'')`,
		`INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at) VALUES ('o1', 'gone', 'r', 1, 2, 'observation', 'x', 1)`,
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	store.CloseDB(db)
	rep := &Report{Tables: []Table{{Name: "messages", Kept: 10}, {Name: "embeddings", Kept: 2}, {Name: "observations", Kept: 1}}}
	now := time.Date(2026, 12, 3, 2, 0, 0, 0, time.UTC)
	if err := repair(ctx, path, now, rep); err != nil {
		t.Fatal(err)
	}
	var lost []string
	for _, l := range rep.Lost {
		lost = append(lost, fmt.Sprintf("%s:%d-%d", l.ThreadID, l.FromSeq, l.ToSeq))
	}
	if want := []string{"a:4-4", "a:6-6", "a:8-8", "a:10-10", "c:2-2", "d:1-2"}; !slices.Equal(lost, want) {
		t.Fatalf("lost %v, want %v", lost, want)
	}
	if rep.ThreadsRebuilt != 1 || rep.table("messages").Garbled != 1 || rep.table("messages").Kept != 9 ||
		rep.table("embeddings").Orphans != 1 || rep.table("observations").Orphans != 1 {
		t.Fatalf("report %+v", rep)
	}
	db, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	counters := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT id, last_seq, message_count, updated_at FROM threads`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var last, n, updated int64
		rows.Scan(&id, &last, &n, &updated)
		counters[id] = fmt.Sprintf("%d/%d/%d", last, n, updated)
	}
	rows.Close()
	// updated_at: the newest kept message's created_at (a's was lost seq
	// 10's, 9000, walk40 #5), the thread's created_at when none is kept.
	if want := map[string]string{"a": "10/4/1004", "b": "2/2/1006", "c": "3/2/1009", "d": "2/0/1"}; fmt.Sprint(counters) != fmt.Sprint(want) {
		t.Fatalf("last_seq/message_count/updated_at %v, want %v", counters, want)
	}
	ranges, err := journal.LostRanges(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range ranges {
		n += int(r.ToSeq - r.FromSeq + 1)
	}
	if n != 8 { // 7 lost now, 1 before
		t.Fatalf("journal records %d lost seqs (%+v), want 8", n, ranges)
	}
	var again []journal.LostRange
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if again, err = recordLost(ctx, tx, now); err != nil || len(again) != 0 {
		t.Fatalf("recordLost again: %v %+v (want nothing more lost)", err, again)
	}
}
