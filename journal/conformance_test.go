package journal_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestEntombRecords runs an erasure's journal half in one transaction —
// the threads a resource's records name, then tombstones for a deleted
// thread (its memctx records, runs and rows), for the run ids that spell
// it and for the erased resource — and checks what each reader sees after
// commit. It covers the statements with numbered placeholders (?1…?5).
func TestEntombRecords(t *testing.T) { forEachBackend(t, testEntombRecords) }

func testEntombRecords(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	for _, rec := range []*journal.MemCtx{
		{RunID: "t1-run", ThreadID: "t1", ResourceID: "r1", Query: "where is ana?",
			Recent: []journal.Ref{{ThreadID: "t1", Seq: 1, MessageID: "m1", Role: "user", Preview: "ana is in lisbon"}}},
		{RunID: "run-b", ThreadID: "t2", ResourceID: "r1", Query: "hello"},
		{RunID: "run-c", ThreadID: "t3", ResourceID: "r2", Query: "other"},
	} {
		if err := j.PutMemCtx(ctx, rec, false); err != nil {
			t.Fatal(err)
		}
	}
	tool := journal.ToolKey{RunID: "t1-run", ThreadID: "t1", ResourceID: "r1", CallID: "c1"}
	if _, err := j.Apply(ctx, tool, func(context.Context) ([]byte, error) { return []byte("done"), nil }); err != nil {
		t.Fatal(err)
	}
	en := journal.Entomb{Of: func(id string) string { return "tomb:" + id }, Deleted: map[string]bool{"t1": true}, Resource: "r1"}
	inTx(t, db, func(tx *store.Tx) error {
		named, err := journal.NamedThreads(ctx, tx, "r1")
		if err != nil {
			return err
		}
		if slices.Sort(named); !slices.Equal(named, []string{"t1", "t2"}) {
			return fmt.Errorf("NamedThreads(r1) = %v, want [t1 t2]", named)
		}
		if err := journal.EntombThread(ctx, tx, en, "t1", ""); err != nil {
			return err
		}
		if err := journal.EntombRunIDs(ctx, tx, en, "tomb:t1", []string{"t1"}); err != nil {
			return err
		}
		if err := journal.EntombResource(ctx, tx, en); err != nil {
			return err
		}
		raw, err := journal.MemCtxTx(ctx, tx, "t1-run")
		if err != nil || !bytes.Contains(raw, []byte(`"tomb:m1"`)) || bytes.Contains(raw, []byte("lisbon")) {
			return fmt.Errorf("MemCtxTx after entombing = %s, %v", raw, err)
		}
		return nil
	})
	rec, err := j.MemCtx(ctx, "t1-run")
	if err != nil {
		t.Fatal(err)
	}
	if rec.ThreadID != "tomb:t1" || rec.ResourceID != "tomb:r1" || rec.Query != journal.ErasedPreview ||
		rec.Recent[0].ThreadID != "tomb:t1" || rec.Recent[0].Preview != journal.ErasedPreview || rec.Recent[0].Seq != 1 {
		t.Fatalf("entombed record = %+v", rec)
	}
	for run, want := range map[string][2]string{"tomb:t1-run": {"tomb:t1", "tomb:r1"}, "run-b": {"t2", "tomb:r1"}, "run-c": {"t3", "r2"}} {
		if th, r, err := journal.RunOwner(ctx, db, run); err != nil || th != want[0] || r != want[1] {
			t.Fatalf("RunOwner(%s) = %s, %s, %v; want %v", run, th, r, err, want)
		}
	}
	if _, _, err := journal.RunOwner(ctx, db, "t1-run"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("the run id spelling the thread is still claimed: %v", err)
	}
	if runs, err := j.ListRuns(ctx, journal.RunFilter{ResourceID: "r1"}); err != nil || len(runs) != 0 {
		t.Fatalf("runs of the erased resource = %+v, %v", runs, err)
	}
	if runs, err := j.ListRuns(ctx, journal.RunFilter{ResourceID: "tomb:r1"}); err != nil || len(runs) != 2 {
		t.Fatalf("runs of the tombstone = %+v, %v; want 2", runs, err)
	}
}

// TestForgetReplaceDangling covers the remaining writers and readers:
// Forget and ForgetRunTools by key prefix, PutMemCtx with replace (the
// upsert), and DanglingDispatches.
func TestForgetReplaceDangling(t *testing.T) { forEachBackend(t, testForgetReplaceDangling) }

func testForgetReplaceDangling(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	out := func(s string) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) { return []byte(s), nil }
	}
	for _, k := range []string{"obs:t1:1", "obs:t1:2", "obs:t2:1"} {
		if _, err := j.Step(ctx, journal.ScopeMemo, k, out(k)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := j.Forget(ctx, journal.ScopeMemo, "obs:t1:"); err != nil || n != 2 {
		t.Fatalf("Forget = %d, %v; want 2", n, err)
	}
	if _, err := j.Recorded(ctx, journal.ScopeMemo, "obs:t2:1"); err != nil {
		t.Fatalf("another prefix was forgotten: %v", err)
	}
	k := journal.ToolKey{RunID: "run-1", ThreadID: "t1", ResourceID: "r1", CallID: "c1"}
	if _, err := j.Apply(ctx, k, out("applied")); err != nil {
		t.Fatal(err)
	}
	inTx(t, db, func(tx *store.Tx) error { return journal.ForgetRunTools(ctx, tx, "run-1") })
	if _, err := j.Recorded(ctx, journal.ScopeTool, k.String()); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("ForgetRunTools left the application: %v", err)
	}

	rec := &journal.MemCtx{RunID: "run-1", ThreadID: "t1", ResourceID: "r1", Query: "first"}
	if err := j.PutMemCtx(ctx, rec, false); err != nil {
		t.Fatal(err)
	}
	rec.Query, rec.CreatedAt = "second", ""
	if err := j.PutMemCtx(ctx, rec, true); err != nil {
		t.Fatalf("replace: %v", err)
	}
	if got, err := j.MemCtx(ctx, "run-1"); err != nil || got.Query != "second" {
		t.Fatalf("replaced record = %+v, %v", got, err)
	}
	if runs, err := j.ListRuns(ctx, journal.RunFilter{ThreadID: "t1"}); err != nil || len(runs) != 1 {
		t.Fatalf("runs after replace = %+v, %v; want one", runs, err)
	}

	inTx(t, db, func(tx *store.Tx) error {
		return journal.BeginDispatch(ctx, tx, journal.Dispatch{RunID: "run-1", CallID: "c9", ThreadID: "t1", ResourceID: "r1",
			MessageID: "never-stored", Name: "send", BegunAt: time.Now()})
	})
	if keys, err := journal.DanglingDispatches(ctx, db); err != nil || !slices.Equal(keys, []journal.DispatchKey{{RunID: "run-1", CallID: "c9"}}) {
		t.Fatalf("DanglingDispatches = %v, %v", keys, err)
	}
}

// TestRacingConnections races two journals on two pools of one database,
// as two engine processes do: the in-process deduplication cannot help,
// only the database's constraints. Each round, both apply one tool call
// (with different outputs) and both get the one recorded application; both
// claim one run id for different threads and exactly one wins; both store
// the memctx record of one run and exactly one succeeds, the other gets
// ErrRunExists (on Postgres, a unique violation seen after the first
// insert commits).
func TestRacingConnections(t *testing.T) { forEachBackend(t, testRacingConnections) }

func testRacingConnections(t *testing.T, b backend) {
	ctx := context.Background()
	place := b.Place(t)
	db := b.OpenDB(t, place)
	js := [2]*journal.Journal{journal.New(b.OpenDB(t, place), nil), journal.New(b.OpenDB(t, place), nil)}
	race := func(fn func(i int, j *journal.Journal) error) [2]error {
		var errs [2]error
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, j := range js {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = fn(i, j)
			}()
		}
		close(start)
		wg.Wait()
		return errs
	}
	oneOf := func(errs [2]error, want error) bool {
		return (errs[0] == nil && errors.Is(errs[1], want)) || (errs[1] == nil && errors.Is(errs[0], want))
	}
	for round := range 12 {
		k := journal.ToolKey{RunID: fmt.Sprint("run-", round), ThreadID: "t", ResourceID: "r", CallID: "c"}
		var outs [2][]byte
		errs := race(func(i int, j *journal.Journal) (err error) {
			outs[i], err = j.Apply(ctx, k, func(context.Context) ([]byte, error) { return []byte(fmt.Sprint("pool-", i)), nil })
			return err
		})
		if errs[0] != nil || errs[1] != nil || !bytes.Equal(outs[0], outs[1]) {
			t.Fatalf("round %d: Apply = %q, %q; errors %v", round, outs[0], outs[1], errs)
		}
		var n int
		if err := store.Bound(db).QueryRowContext(ctx, `SELECT COUNT(*) FROM journal WHERE scope = ? AND key = ?`, journal.ScopeTool, k.String()).Scan(&n); err != nil || n != 1 {
			t.Fatalf("round %d: %d recorded applications, %v; want 1", round, n, err)
		}
		claim := fmt.Sprint("claim-", round)
		errs = race(func(i int, j *journal.Journal) error { return j.ClaimRun(ctx, claim, fmt.Sprint("thread-", i), "r") })
		if !oneOf(errs, journal.ErrRunOwned) {
			t.Fatalf("round %d: ClaimRun = %v; want one claim and one ErrRunOwned", round, errs)
		}
		memctx := fmt.Sprint("memctx-", round)
		errs = race(func(i int, j *journal.Journal) error {
			return j.PutMemCtx(ctx, &journal.MemCtx{RunID: memctx, ThreadID: "t", ResourceID: "r", Query: fmt.Sprint("pool-", i)}, false)
		})
		if !oneOf(errs, journal.ErrRunExists) {
			t.Fatalf("round %d: PutMemCtx = %v; want one record and one ErrRunExists", round, errs)
		}
	}
}

// TestApplyOnceAcrossPools: on Postgres a tool application runs once
// across processes, not only within one: two pools race one key
// with a slow fn, and fn runs once, both getting its output; a caller
// waiting for another pool's execution gives up when its context ends,
// and gets the record once it is committed. SQLite promises less across
// processes (the first record committed wins, fn may run in each), so the
// test is Postgres's.
func TestApplyOnceAcrossPools(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.Name != "postgres" {
			t.Skipf("%s: across processes the first committed record wins (fn may run in each); one execution is Postgres's guarantee", b.Name)
		}
		testApplyOnceAcrossPools(t, b)
	})
}

func testApplyOnceAcrossPools(t *testing.T, b backend) {
	ctx := context.Background()
	place := b.Place(t)
	js := [2]*journal.Journal{journal.New(b.OpenDB(t, place), nil), journal.New(b.OpenDB(t, place), nil)}
	for round := range 4 {
		k := journal.ToolKey{RunID: fmt.Sprint("run-", round), ThreadID: "t", ResourceID: "r", CallID: "c"}
		var ran sync.WaitGroup
		var n atomic.Int32
		var outs [2][]byte
		var errs [2]error
		for i, j := range js {
			ran.Add(1)
			go func() {
				defer ran.Done()
				outs[i], errs[i] = j.Apply(ctx, k, func(context.Context) ([]byte, error) {
					n.Add(1)
					time.Sleep(50 * time.Millisecond) // both callers are waiting by now
					return []byte(fmt.Sprint("pool-", i)), nil
				})
			}()
		}
		ran.Wait()
		if errs[0] != nil || errs[1] != nil || !bytes.Equal(outs[0], outs[1]) || n.Load() != 1 {
			t.Fatalf("round %d: fn ran %d times; outputs %q, %q; errors %v", round, n.Load(), outs[0], outs[1], errs)
		}
	}

	k := journal.ToolKey{RunID: "slow", ThreadID: "t", ResourceID: "r", CallID: "c"}
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := js[0].Apply(ctx, k, func(context.Context) ([]byte, error) {
			close(started)
			<-release
			return []byte("slow"), nil
		})
		done <- err
	}()
	<-started
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err := js[1].Apply(short, k, func(context.Context) ([]byte, error) { return []byte("second"), nil })
	cancel()
	if err == nil {
		t.Fatal("a caller waiting for another pool's execution returned before it finished")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if out, err := js[1].Apply(ctx, k, func(context.Context) ([]byte, error) { return []byte("second"), nil }); err != nil || string(out) != "slow" {
		t.Fatalf("after the first committed: %q, %v; want its output", out, err)
	}
}

// TestApplyAcrossSchemas: the tool-application lock of a key is the
// schema's: two deployments in two schemas of one Postgres database
// (mnemo's tables in each search_path's first schema, docs/postgres.md)
// apply the same (run, thread, call) key without waiting for each other.
// Before, the lock's key was a hash of the scope and key alone, and
// advisory locks are the database's: a tool held in one schema (a slow
// side effect, or a lost client's session for up to ~2 h) blocked every
// schema's application of a key spelled the same.
func TestApplyAcrossSchemas(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		if b.Name != "postgres" {
			t.Skipf("%s: a file per deployment, no lock shared", b.Name)
		}
		ctx := context.Background()
		k := journal.ToolKey{RunID: "run-1", ThreadID: "t", ResourceID: "r", CallID: "c"}
		held := journal.New(b.OpenDB(t, b.Place(t)), nil)
		other := journal.New(b.OpenDB(t, b.Place(t)), nil)
		started, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := held.Apply(ctx, k, func(context.Context) ([]byte, error) {
				close(started)
				<-release
				return []byte("held"), nil
			})
			done <- err
		}()
		<-started
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		out, err := other.Apply(short, k, func(context.Context) ([]byte, error) { return []byte("other"), nil })
		cancel()
		close(release)
		if err != nil || string(out) != "other" {
			t.Errorf("another schema's application of the same key: %q, %v; want it run at once", out, err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
