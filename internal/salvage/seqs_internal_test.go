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

// TestRepairSeqOutOfPlace: a message whose seq was garbled to another
// positive number (its digest covers its text, not its seq) is dropped as
// garbled, its true seq recorded as lost, when its thread's order or
// counts show it out of place; a thread whose own row is garbled keeps
// its messages. Before, such a row raised its thread's last_seq (3 read
// as 70: seqs 7..69 recorded as lost) or took the place of an erased
// seq.
func TestRepairSeqOutOfPlace(t *testing.T) {
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
	// msgs inserts thread's messages in pk order with these seqs.
	msgs := func(thread string, seqs ...int64) []string {
		var out []string
		for _, seq := range seqs {
			pk++
			content := fmt.Sprintf("message %d of %s", pk, thread)
			out = append(out, fmt.Sprintf(`INSERT INTO messages (pk, id, thread_id, resource_id, seq, role, content, created_at, tokens, digest)
				VALUES (%d, 'm-%d', '%s', 'r', %d, 'user', '%s', %d, 3, '%s')`, pk, pk, thread, seq, content, 1000+pk, msgstore.Digest("user", content, "", "", nil)))
		}
		return out
	}
	thread := func(id string, lastSeq, count int) string {
		return fmt.Sprintf(`INSERT INTO threads (id, resource_id, created_at, updated_at, last_seq, message_count) VALUES ('%s', 'r', 1, 1, %d, %d)`, id, lastSeq, count)
	}
	erased := func(thread string, seq int) string {
		return fmt.Sprintf(`INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES ('%s', '%s:%d', '%s', 'r', x'', 1)`, journal.ScopeErased, thread, seq, thread)
	}
	var stmts []string
	// order: 3 read as 70, between 2 and 4 by pk; its thread's row
	// does not agree (a page of its messages unreadable: count 7).
	stmts = append(stmts, thread("order", 6, 7))
	stmts = append(stmts, msgs("order", 1, 2, 70, 4, 5, 6)...)
	// last: the last message's 4 read as 9; the row agrees with itself.
	stmts = append(stmts, thread("last", 4, 4))
	stmts = append(stmts, msgs("last", 1, 2, 3, 9)...)
	// erased: 2 erased, 3 read as 2 (in order, but an erased seq).
	stmts = append(stmts, thread("erased", 4, 3), erased("erased", 2))
	stmts = append(stmts, msgs("erased", 1, 2, 4)...)
	// rowbad: the thread's last_seq garbled (4 read as 2): its messages stay.
	stmts = append(stmts, thread("rowbad", 2, 4))
	stmts = append(stmts, msgs("rowbad", 1, 2, 3, 4)...)
	// tie: 3 read as 9 before 4: by order alone 9 or 4 could be the odd
	// one, and the row does not agree (count 5): both stay, as before.
	stmts = append(stmts, thread("tie", 4, 5))
	stmts = append(stmts, msgs("tie", 1, 2, 9, 4)...)
	// pkbad: 3's pk garbled to one past 5's (its seq is sound, a hole
	// below 5): it stays, nothing is lost. It was dropped as out of place
	// and seq 3 recorded as lost.
	stmts = append(stmts, thread("pkbad", 5, 5))
	stmts = append(stmts, msgs("pkbad", 1, 2, 4, 5)...)
	stmts = append(stmts, msgs("pkbad", 3)...)
	// pklast: the last message's pk garbled below the others'; the
	// thread's row agrees (last_seq 5): it stays too.
	stmts = append(stmts, thread("pklast", 5, 5))
	stmts = append(stmts, msgs("pklast", 5, 1, 2, 3, 4)...)
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	store.CloseDB(db)
	rep := &Report{Tables: []Table{{Name: "messages", Kept: int64(pk)}}}
	now := time.Date(2026, 12, 4, 13, 0, 0, 0, time.UTC)
	if err := repair(ctx, path, now, rep); err != nil {
		t.Fatal(err)
	}
	var lost []string
	for _, l := range rep.Lost {
		lost = append(lost, fmt.Sprintf("%s:%d-%d", l.ThreadID, l.FromSeq, l.ToSeq))
	}
	if want := []string{"erased:3-3", "last:4-4", "order:3-3", "tie:3-3", "tie:5-8"}; !slices.Equal(lost, want) {
		t.Fatalf("lost %v, want %v", lost, want)
	}
	if m := rep.table("messages"); m.Garbled != 3 || m.Kept != int64(pk)-3 {
		t.Fatalf("messages %+v, want 3 garbled", m)
	}
	db, err = store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	got := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT id, last_seq, message_count FROM threads`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var last, n int64
		rows.Scan(&id, &last, &n)
		got[id] = fmt.Sprintf("%d/%d", last, n)
	}
	rows.Close()
	if want := map[string]string{"order": "6/5", "last": "4/3", "erased": "4/2", "rowbad": "4/4", "tie": "9/4", "pkbad": "5/5", "pklast": "5/5"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("last_seq/message_count %v, want %v", got, want)
	}
}

// TestInSomeLongestRise: the rows kept by the order rule.
func TestInSomeLongestRise(t *testing.T) {
	for _, tc := range []struct {
		seqs []int64
		want []bool
	}{
		{nil, []bool{}},
		{[]int64{5}, []bool{true}},
		{[]int64{1, 2, 70, 4, 5}, []bool{true, true, false, true, true}},
		{[]int64{1, 3, 4, 5, 2, 7}, []bool{true, true, true, true, false, true}},
		{[]int64{1, 2, 9, 4}, []bool{true, true, true, true}},
		{[]int64{3, 1, 2}, []bool{false, true, true}},
	} {
		if got := inSomeLongestRise(tc.seqs); !slices.Equal(got, tc.want) {
			t.Errorf("inSomeLongestRise(%v) = %v, want %v", tc.seqs, got, tc.want)
		}
	}
}
