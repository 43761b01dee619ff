package journal_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

func openJournal(t *testing.T, path string) (*journal.Journal, func()) {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return journal.New(db, nil), func() { db.Close() }
}

func TestStepMemoizes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	j, closeDB := openJournal(t, path)
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
		j, closeDB := openJournal(t, path)
		defer closeDB()
		out, err := j.Step(ctx, journal.ScopeMemo, "obs:t1:1:40:v1:m", fn)
		if err != nil || string(out) != string(first) || runs.Load() != 1 {
			t.Fatalf("after reopen: %q, %v, runs %d", out, err, runs.Load())
		}
	})
	t.Run("FailureRecordsNothing", func(t *testing.T) {
		j, closeDB := openJournal(t, path)
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
		j, closeDB := openJournal(t, path)
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

func TestApplyAcrossRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	applied := 0
	fn := func(context.Context) ([]byte, error) { applied++; return []byte(`{"version":2}`), nil }
	j, closeDB := openJournal(t, path)
	if _, err := j.Apply(ctx, "run-1", "call-1", fn); err != nil {
		t.Fatal(err)
	}
	closeDB()
	j, closeDB = openJournal(t, path)
	defer closeDB()
	out, err := j.Apply(ctx, "run-1", "call-1", fn)
	if err != nil || string(out) != `{"version":2}` || applied != 1 {
		t.Fatalf("resumed: %q %v applied %d", out, err, applied)
	}
	if _, err := j.Apply(ctx, "run-2", "call-1", fn); err != nil || applied != 2 {
		t.Fatalf("another run's call must apply: %v, applied %d", err, applied)
	}
}
