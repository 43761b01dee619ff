package journal_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestDispatchLifecycle begins a dispatch, reads it back with its call
// message's seq and arguments, and settles it.
func TestDispatchLifecycle(t *testing.T) { forEachBackend(t, testDispatchLifecycle) }

func testDispatchLifecycle(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	begun := time.UnixMilli(1_700_000_000_123).UTC()
	inTx(t, db, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t1', 'r1', 1, 1)`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, created_at, tokens, digest)
			VALUES ('m1', 't1', 'r1', 7, 'assistant', '', '[{"id":"c1","name":"send","arguments":{"to":"a"}}]', 1, 1, 'd')`); err != nil {
			return err
		}
		if err := j.ClaimRunTx(ctx, tx, "run1", "t1", "r1"); err != nil {
			return err
		}
		if _, ok, err := journal.DispatchMessage(ctx, tx, "run1", "c1"); err != nil || ok {
			return fmt.Errorf("DispatchMessage before begin: ok %v, err %v", ok, err)
		}
		return journal.BeginDispatch(ctx, tx, journal.Dispatch{RunID: "run1", CallID: "c1", ThreadID: "t1", ResourceID: "r1",
			MessageID: "m1", Name: "send", BegunAt: begun})
	})
	d, err := journal.ReadDispatch(ctx, db, "run1", "c1")
	if err != nil {
		t.Fatal(err)
	}
	want := journal.Dispatch{RunID: "run1", CallID: "c1", ThreadID: "t1", ResourceID: "r1", Name: "send", MessageID: "m1", Seq: 7,
		ToolCalls: `[{"id":"c1","name":"send","arguments":{"to":"a"}}]`, BegunAt: begun}
	if d != want {
		t.Fatalf("ReadDispatch = %+v, want %+v", d, want)
	}
	if p, err := j.DispatchPending(ctx, "m1", "c1"); err != nil || !p {
		t.Fatalf("DispatchPending before settling = %v, %v; want true", p, err)
	}
	if keys, err := j.UnsettledDispatches(ctx, "t1"); err != nil || len(keys) != 1 || keys[0] != (journal.DispatchKey{RunID: "run1", CallID: "c1"}) {
		t.Fatalf("UnsettledDispatches = %v, %v", keys, err)
	}
	settled := begun.Add(time.Second)
	inTx(t, db, func(tx *store.Tx) error {
		if msg, ok, err := journal.DispatchMessage(ctx, tx, "run1", "c1"); err != nil || !ok || msg != "m1" {
			return fmt.Errorf("DispatchMessage = %q, %v, %v; want m1", msg, ok, err)
		}
		return journal.SettleDispatch(ctx, tx, "run1", "c1", "res1", true, settled)
	})
	d, err = journal.ReadDispatch(ctx, db, "run1", "c1")
	if err != nil || d.ResultID != "res1" || !d.Failed || !d.SettledAt.Equal(settled) {
		t.Fatalf("settled dispatch = %+v, %v", d, err)
	}
	if p, err := j.DispatchPending(ctx, "m1", "c1"); err != nil || p {
		t.Fatalf("DispatchPending after settling = %v, %v; want false", p, err)
	}
	if keys, err := j.UnsettledDispatches(ctx, "t1"); err != nil || len(keys) != 0 {
		t.Fatalf("UnsettledDispatches after settling = %v, %v", keys, err)
	}
}

// TestDispatchNotFoundWording: an unclaimed run and an unknown dispatch
// are worded as the journal's other missing things, `journal: run not
// found: "ID"` and `journal: dispatch not found: call "C" of run "R"`, and
// still match ErrNotFound; they read `journal: record not found: run
// "ID"` and `… dispatch of call "C" in run "R"`.
func TestDispatchNotFoundWording(t *testing.T) { forEachBackend(t, testDispatchNotFoundWording) }

func testDispatchNotFoundWording(t *testing.T, b backend) {
	ctx := context.Background()
	_, db := b.openErase(t)
	_, err := journal.ReadDispatch(ctx, db, "run1", "c1")
	if got, want := fmt.Sprint(err), `journal: dispatch not found: call "c1" of run "run1"`; got != want || !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("ReadDispatch of nothing: %q (ErrNotFound %v), want %q", got, errors.Is(err, journal.ErrNotFound), want)
	}
	_, _, err = journal.RunOwner(ctx, db, "run1")
	if got, want := fmt.Sprint(err), `journal: run not found: "run1"`; got != want || !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("RunOwner of an unclaimed run: %q (ErrNotFound %v), want %q", got, errors.Is(err, journal.ErrNotFound), want)
	}
}

// TestDispatchMissing: an unknown dispatch and an unclaimed run are
// ErrNotFound; a run claimed by another thread is ErrRunOwned.
func TestDispatchMissing(t *testing.T) { forEachBackend(t, testDispatchMissing) }

func testDispatchMissing(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	if _, err := journal.ReadDispatch(ctx, db, "run1", "c1"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("ReadDispatch of nothing: %v, want ErrNotFound", err)
	}
	if _, _, err := journal.RunOwner(ctx, db, "run1"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("RunOwner of an unclaimed run: %v, want ErrNotFound", err)
	}
	inTx(t, db, func(tx *store.Tx) error { return j.ClaimRunTx(ctx, tx, "run1", "t1", "r1") })
	if th, r, err := journal.RunOwner(ctx, db, "run1"); err != nil || th != "t1" || r != "r1" {
		t.Fatalf("RunOwner = %q, %q, %v; want t1, r1", th, r, err)
	}
	for _, other := range [][2]string{{"t2", "r1"}, {"t1", "r2"}} {
		tx, err := store.Begin(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = j.ClaimRunTx(ctx, tx, "run1", other[0], other[1])
		tx.Rollback()
		if !errors.Is(err, journal.ErrRunOwned) {
			t.Fatalf("ClaimRunTx by %v: %v, want ErrRunOwned", other, err)
		}
	}
}

// TestDeleteDispatches erases, across more than one IN-list chunk, the
// dispatches whose call or result message is erased, and a thread's.
func TestDeleteDispatches(t *testing.T) { forEachBackend(t, testDeleteDispatches) }

func testDeleteDispatches(t *testing.T, b backend) {
	ctx := context.Background()
	_, db := b.openErase(t)
	n := store.ChunkSize + 10
	inTx(t, db, func(tx *store.Tx) error {
		for i := range n {
			thread := "t1"
			if i%2 == 1 {
				thread = "t2"
			}
			if err := journal.BeginDispatch(ctx, tx, journal.Dispatch{RunID: fmt.Sprint("run", i), CallID: "c", ThreadID: thread,
				ResourceID: "r", MessageID: fmt.Sprint("call", i), Name: "send", BegunAt: time.Now()}); err != nil {
				return err
			}
			if err := journal.SettleDispatch(ctx, tx, fmt.Sprint("run", i), "c", fmt.Sprint("result", i), false, time.Now()); err != nil {
				return err
			}
		}
		return nil
	})
	// Erase the call messages of the first ChunkSize+2 dispatches but the
	// last of them by its result instead.
	var ids []string
	for i := range store.ChunkSize + 2 {
		ids = append(ids, fmt.Sprint("call", i))
	}
	ids[len(ids)-1] = fmt.Sprint("result", len(ids)-1)
	inTx(t, db, func(tx *store.Tx) error { return journal.DeleteDispatches(ctx, tx, ids, time.Now()) })
	count := func(table, where string) int {
		var c int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE `+where).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if got := count("dispatches", "true"); got != n-len(ids) {
		t.Fatalf("%d dispatches left, want %d", got, n-len(ids))
	}
	// Each erased dispatch left a tombstone naming its thread and resource,
	// and no text of it: not its call id, name or messages.
	erased := fmt.Sprintf("scope = '%s'", journal.ScopeDispatchErased)
	if got := count("journal", erased); got != len(ids) {
		t.Fatalf("%d dispatch tombstones, want %d", got, len(ids))
	}
	if got := count("journal", erased+" AND (key LIKE '%run%' OR key LIKE '%call%' OR key LIKE '%send%' OR length(key) <> 64)"); got != 0 {
		t.Fatalf("%d tombstones keep the dispatch's ids in clear", got)
	}
	for i, wantThread := range map[int]string{0: "t1", 1: "t2", len(ids) - 1: "t2"} {
		th, res, ok, err := journal.DispatchErased(ctx, db, fmt.Sprint("run", i), "c")
		if err != nil || !ok || th != wantThread || res != "r" {
			t.Fatalf("DispatchErased(run%d) = %q, %q, %v, %v; want %s, r", i, th, res, ok, err, wantThread)
		}
	}
	for _, k := range [][2]string{{fmt.Sprint("run", n-1), "c"}, {"run0", "other"}, {"nope", "c"}} {
		if _, _, ok, err := journal.DispatchErased(ctx, db, k[0], k[1]); err != nil || ok {
			t.Fatalf("DispatchErased(%v) of a dispatch not erased: ok %v, err %v", k, ok, err)
		}
	}
	inTx(t, db, func(tx *store.Tx) error { return journal.DeleteThreadDispatches(ctx, tx, "t2") })
	if got, t1 := count("dispatches", "true"), count("dispatches", "thread_id = 't1'"); got != t1 || got == 0 {
		t.Fatalf("after deleting t2's: %d left, %d of t1; want only t1's", got, t1)
	}
	// A deleted thread's tombstones go with it (journal.DeleteThread).
	inTx(t, db, func(tx *store.Tx) error { return journal.DeleteThread(ctx, tx, "t2") })
	if got, t1 := count("journal", erased), count("journal", erased+" AND thread_id = 't1'"); got != t1 || got == 0 {
		t.Fatalf("after deleting thread t2: %d tombstones, %d of t1; want only t1's", got, t1)
	}
}

// TestDispatchAnswered: the tool message answering a dispatch's call
// (DispatchAnswer), the unsettled dispatches a tool message answers
// (AnsweredBy: two runs' dispatches of one call, as a database written
// before BeginDispatch refused the second holds; none past an earlier
// result), OtherDispatch, and DeleteDispatch with its tombstone
// (DispatchErased).
func TestDispatchAnswered(t *testing.T) { forEachBackend(t, testDispatchAnswered) }

func testDispatchAnswered(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	inTx(t, db, func(tx *store.Tx) error {
		for _, q := range []string{
			`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t1', 'r1', 1, 1)`,
			`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, created_at, tokens, digest)
				VALUES ('m1', 't1', 'r1', 1, 'assistant', '', '[{"id":"c1","name":"send","arguments":{}}]', 1, 1, 'd')`,
			`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_call_id, created_at, tokens, digest)
				VALUES ('a1', 't1', 'r1', 3, 'tool', 'sent', 'c1', 1, 1, 'd')`,
			`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_call_id, created_at, tokens, digest)
				VALUES ('a2', 't1', 'r1', 4, 'tool', 'sent again', 'c1', 1, 1, 'd')`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		for _, run := range []string{"run1", "run2"} {
			if err := j.ClaimRunTx(ctx, tx, run, "t1", "r1"); err != nil {
				return err
			}
			if err := journal.BeginDispatch(ctx, tx, journal.Dispatch{RunID: run, CallID: "c1", ThreadID: "t1", ResourceID: "r1",
				MessageID: "m1", Name: "send", BegunAt: time.UnixMilli(1).UTC()}); err != nil {
				return err
			}
		}
		return nil
	})
	answered := func(resultSeq int64) string {
		var got string
		inTx(t, db, func(tx *store.Tx) error {
			ds, err := journal.AnsweredBy(ctx, tx, "t1", "c1", resultSeq)
			for _, d := range ds {
				got += fmt.Sprintf("%s/%s@%d ", d.RunID, d.CallID, d.Seq)
			}
			return err
		})
		return got
	}
	if got, want := answered(3), "run1/c1@1 run2/c1@1 "; got != want {
		t.Fatalf("AnsweredBy(seq 3) = %q, want %q", got, want)
	}
	if got := answered(4); got != "" {
		t.Fatalf("AnsweredBy(seq 4) = %q, want none: a1 answers the call first", got)
	}
	inTx(t, db, func(tx *store.Tx) error {
		if id, ok, err := journal.DispatchAnswer(ctx, tx, "run2", "c1"); err != nil || !ok || id != "a1" {
			return fmt.Errorf("DispatchAnswer = %q, %v, %v; want a1", id, ok, err)
		}
		if _, ok, err := journal.DispatchAnswer(ctx, tx, "nope", "c1"); err != nil || ok {
			return fmt.Errorf("DispatchAnswer of no dispatch: ok %v, err %v", ok, err)
		}
		return journal.SettleDispatch(ctx, tx, "run1", "c1", "a1", false, time.UnixMilli(2).UTC())
	})
	if got, want := answered(3), "run2/c1@1 "; got != want {
		t.Fatalf("AnsweredBy(seq 3) after settling run1 = %q, want %q", got, want)
	}
	inTx(t, db, func(tx *store.Tx) error {
		// OtherDispatch: run1's dispatch of m1's c1, as seen by run2 and by a
		// third run; none other than run2's as seen by run1 once run1's goes.
		for _, run := range []string{"run2", "run3"} {
			if d, ok, err := journal.OtherDispatch(ctx, tx, "t1", "m1", "c1", run); err != nil || !ok || d.RunID != "run1" || d.ResultID != "a1" {
				return fmt.Errorf("OtherDispatch(%s) = %+v, %v, %v; want run1's, settled by a1", run, d, ok, err)
			}
		}
		if d, ok, err := journal.OtherDispatch(ctx, tx, "t1", "m1", "c1", "run1"); err != nil || !ok || d.RunID != "run2" || d.ResultID != "" {
			return fmt.Errorf("OtherDispatch(run1) = %+v, %v, %v; want run2's, unsettled", d, ok, err)
		}
		if _, ok, err := journal.OtherDispatch(ctx, tx, "t1", "m1", "c2", "run9"); err != nil || ok {
			return fmt.Errorf("OtherDispatch of another call: ok %v, err %v", ok, err)
		}
		return nil
	})
	for range 2 { // deleting again is no error
		inTx(t, db, func(tx *store.Tx) error { return journal.DeleteDispatch(ctx, tx, "run2", "c1", time.UnixMilli(3)) })
	}
	if _, err := journal.ReadDispatch(ctx, db, "run2", "c1"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("ReadDispatch after DeleteDispatch: %v, want ErrNotFound", err)
	}
	if th, res, ok, err := journal.DispatchErased(ctx, db, "run2", "c1"); err != nil || !ok || th != "t1" || res != "r1" {
		t.Fatalf("DispatchErased after DeleteDispatch = %q, %q, %v, %v; want t1, r1", th, res, ok, err)
	}
	inTx(t, db, func(tx *store.Tx) error {
		if _, ok, err := journal.OtherDispatch(ctx, tx, "t1", "m1", "c1", "run1"); err != nil || ok {
			return fmt.Errorf("OtherDispatch(run1) after run2's was erased: ok %v, err %v; an erased dispatch holds no call", ok, err)
		}
		return nil
	})
	if _, err := journal.ReadDispatch(ctx, db, "run1", "c1"); err != nil {
		t.Fatalf("run1's dispatch: %v", err)
	}
}
