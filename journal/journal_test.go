package journal_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
)

func TestStepMemoizes(t *testing.T) { forEachBackend(t, testStepMemoizes) }

func testStepMemoizes(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.Place(t)
	j, closeDB := b.openJournal(t, path)
	var runs atomic.Int32
	fn := func(context.Context) ([]byte, error) {
		runs.Add(1)
		return []byte("summary \x00 of seq 1-40"), nil
	}
	first, err := j.Step(ctx, journal.ScopeMemo, "obs:t1:1:40:v1:m", fn)
	if err != nil {
		t.Fatal(err)
	}
	second, err := j.Step(ctx, journal.ScopeMemo, "obs:t1:1:40:v1:m", fn)
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 || string(first) != string(second) {
		t.Fatalf("ran %d times; %q vs %q", runs.Load(), first, second)
	}
	closeDB()

	t.Run("AcrossRestart", func(t *testing.T) {
		j, closeDB := b.openJournal(t, path)
		defer closeDB()
		out, err := j.Step(ctx, journal.ScopeMemo, "obs:t1:1:40:v1:m", fn)
		if err != nil || string(out) != string(first) || runs.Load() != 1 {
			t.Fatalf("after reopen: %q, %v, runs %d", out, err, runs.Load())
		}
	})
	t.Run("FailureRecordsNothing", func(t *testing.T) {
		j, closeDB := b.openJournal(t, path)
		defer closeDB()
		boom := errors.New("model down")
		if _, err := j.Step(ctx, journal.ScopeMemo, "k2", func(context.Context) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
		if _, err := j.Recorded(ctx, journal.ScopeMemo, "k2"); !errors.Is(err, journal.ErrNotFound) {
			t.Fatalf("a failed step was recorded: %v", err)
		}
		out, err := j.Step(ctx, journal.ScopeMemo, "k2", func(context.Context) ([]byte, error) { return []byte("ok"), nil })
		if err != nil || string(out) != "ok" {
			t.Fatalf("retry: %q %v", out, err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		j, closeDB := b.openJournal(t, path)
		defer closeDB()
		var n atomic.Int32
		release := make(chan struct{})
		var wg sync.WaitGroup
		outs := make([]string, 8)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := j.Step(ctx, journal.ScopeMemo, "k3", func(context.Context) ([]byte, error) {
					n.Add(1)
					<-release
					return []byte("once"), nil
				})
				if err != nil {
					t.Error(err)
				}
				outs[i] = string(out)
			}()
		}
		for n.Load() == 0 {
			runtime.Gosched() // wait until the single execution started
		}
		close(release)
		wg.Wait()
		if n.Load() != 1 {
			t.Fatalf("ran %d times", n.Load())
		}
		for _, o := range outs {
			if o != "once" {
				t.Fatalf("outputs %q", outs)
			}
		}
	})
}

func TestApplyAcrossRestart(t *testing.T) { forEachBackend(t, testApplyAcrossRestart) }

func testApplyAcrossRestart(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.Place(t)
	applied := 0
	fn := func(context.Context) ([]byte, error) { applied++; return []byte(`{"version":2}`), nil }
	alice := journal.ToolKey{RunID: "run-1", ThreadID: "alice-chat", ResourceID: "alice", CallID: "call-1"}
	j, closeDB := b.openJournal(t, path)
	if _, err := j.Apply(ctx, alice, fn); err != nil {
		t.Fatal(err)
	}
	closeDB()
	j, closeDB = b.openJournal(t, path)
	defer closeDB()
	out, err := j.Apply(ctx, alice, fn)
	if err != nil || string(out) != `{"version":2}` || applied != 1 {
		t.Fatalf("resumed: %q %v applied %d", out, err, applied)
	}
	other := alice
	other.RunID = "run-2"
	if _, err := j.Apply(ctx, other, fn); err != nil || applied != 2 {
		t.Fatalf("another run's call must apply: %v, applied %d", err, applied)
	}
	// The same run and call id under another owner is another application
	// and never returns the first owner's result (issue 12 item 2).
	bob := journal.ToolKey{RunID: "run-1", ThreadID: "bob-chat", ResourceID: "bob", CallID: "call-1"}
	out, err = j.Apply(ctx, bob, func(context.Context) ([]byte, error) { return []byte("bob's"), nil })
	if err != nil || string(out) != "bob's" {
		t.Fatalf("another owner got %q, %v", out, err)
	}
}

// TestApplyInputReused: a key already applied with another input digest is
// another call under a reused id: ErrCallReused, nothing run or recorded;
// the same digest (or an unknown one) gets the recorded output, also after
// a restart.
func TestApplyInputReused(t *testing.T) { forEachBackend(t, testApplyInputReused) }

func testApplyInputReused(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.Place(t)
	applied := 0
	fn := func(context.Context) ([]byte, error) { applied++; return []byte("berlin"), nil }
	k := journal.ToolKey{RunID: "run-1", ThreadID: "t", ResourceID: "r", CallID: "call_0"}
	j, closeDB := b.openJournal(t, path)
	if out, err := j.ApplyInput(ctx, k, "sha256:berlin", fn); err != nil || string(out) != "berlin" {
		t.Fatalf("first: %q, %v", out, err)
	}
	closeDB()
	j, closeDB = b.openJournal(t, path)
	defer closeDB()
	if out, err := j.ApplyInput(ctx, k, "sha256:paris", fn); !errors.Is(err, journal.ErrCallReused) || out != nil {
		t.Fatalf("another input: %q, %v; want ErrCallReused", out, err)
	}
	for _, in := range []string{"sha256:berlin", ""} {
		if out, err := j.ApplyInput(ctx, k, in, fn); err != nil || string(out) != "berlin" {
			t.Fatalf("input %q: %q, %v; want the recorded output", in, out, err)
		}
	}
	if applied != 1 {
		t.Fatalf("applied %d times, want 1", applied)
	}
}

func TestToolKeyUnambiguous(t *testing.T) {
	a := journal.ToolKey{RunID: "a", ThreadID: "t", ResourceID: "r", CallID: "b:c"}
	b := journal.ToolKey{RunID: "a:b", ThreadID: "t", ResourceID: "r", CallID: "c"}
	if a.String() == b.String() {
		t.Fatalf("keys collide: %s", a)
	}
	if got, want := (journal.ToolKey{RunID: "r<1>", ThreadID: "t", ResourceID: "u", CallID: "c&\"\\"}).String(), `["r<1>","t","u","c&\"\\"]`; got != want {
		t.Fatalf("key %s, want %s (the JSON of SQLite's json_array, which migrated old keys)", got, want)
	}
}

func TestClaimRun(t *testing.T) { forEachBackend(t, testClaimRun) }

func testClaimRun(t *testing.T, b backend) {
	ctx := context.Background()
	j, closeDB := b.openJournal(t, b.Place(t))
	defer closeDB()
	if err := j.CheckRun(ctx, "turn-1", "bob-chat", "bob"); err != nil {
		t.Fatalf("unclaimed run: %v", err)
	}
	if err := j.ClaimRun(ctx, "turn-1", "alice-chat", "alice"); err != nil {
		t.Fatal(err)
	}
	if err := j.ClaimRun(ctx, "turn-1", "alice-chat", "alice"); err != nil {
		t.Fatalf("the owner claims again: %v", err)
	}
	for _, c := range []struct{ thread, resource string }{{"bob-chat", "bob"}, {"alice-notes", "alice"}, {"alice-chat", "bob"}} {
		for name, f := range map[string]func() error{
			"ClaimRun": func() error { return j.ClaimRun(ctx, "turn-1", c.thread, c.resource) },
			"CheckRun": func() error { return j.CheckRun(ctx, "turn-1", c.thread, c.resource) },
			"PutMemCtx": func() error {
				return j.PutMemCtx(ctx, &journal.MemCtx{RunID: "turn-1", ThreadID: c.thread, ResourceID: c.resource}, true)
			},
			"PutMemCtx without replace": func() error {
				return j.PutMemCtx(ctx, &journal.MemCtx{RunID: "turn-1", ThreadID: c.thread, ResourceID: c.resource}, false)
			},
			"CheckNewRun":              func() error { return j.CheckNewRun(ctx, "turn-1", c.thread, c.resource, false) },
			"CheckNewRun with replace": func() error { return j.CheckNewRun(ctx, "turn-1", c.thread, c.resource, true) },
		} {
			err := f()
			if !errors.Is(err, journal.ErrRunOwned) {
				t.Fatalf("%s by %s/%s: %v, want ErrRunOwned", name, c.resource, c.thread, err)
			}
			if strings.Contains(err.Error(), "alice-chat") || strings.Contains(err.Error(), `"alice"`) {
				t.Fatalf("%s: the error names the owner: %v", name, err)
			}
		}
	}
	if _, err := j.MemCtx(ctx, "turn-1"); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("a refused PutMemCtx stored a record: %v", err)
	}
}

func TestCheckNewRun(t *testing.T) { forEachBackend(t, testCheckNewRun) }

// testCheckNewRun: LoadContext's one-statement check before a run, for
// each state of the run id (unclaimed, claimed without a record, recorded,
// another thread's with a record).
func testCheckNewRun(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	check := func(state string, replace bool, want error) {
		t.Helper()
		err := j.CheckNewRun(ctx, "turn-1", "alice-chat", "alice", replace)
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Fatalf("%s, replace %v: %v, want %v", state, replace, err, want)
		}
	}
	for _, replace := range []bool{false, true} {
		check("unclaimed", replace, nil)
	}
	if err := j.ClaimRun(ctx, "turn-1", "alice-chat", "alice"); err != nil {
		t.Fatal(err)
	}
	for _, replace := range []bool{false, true} {
		check("claimed, no record", replace, nil)
	}
	if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: "turn-1", ThreadID: "alice-chat", ResourceID: "alice"}, false); err != nil {
		t.Fatal(err)
	}
	check("recorded", false, journal.ErrRunExists)
	check("recorded", true, nil)
	// Another thread's run with a record: the owner check comes first.
	if err := j.PutMemCtx(ctx, &journal.MemCtx{RunID: "turn-2", ThreadID: "bob-chat", ResourceID: "bob"}, false); err != nil {
		t.Fatal(err)
	}
	for _, replace := range []bool{false, true} {
		if err := j.CheckNewRun(ctx, "turn-2", "alice-chat", "alice", replace); !errors.Is(err, journal.ErrRunOwned) {
			t.Fatalf("another thread's recorded run, replace %v: %v, want ErrRunOwned", replace, err)
		}
	}
	// A record without a claim (written before runs were claimed) is
	// still a recorded run.
	if _, err := db.ExecContext(ctx, `DELETE FROM runs WHERE id = 'turn-1'`); err != nil {
		t.Fatal(err)
	}
	check("recorded, unclaimed", false, journal.ErrRunExists)
}
