package bench_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/cmd/mnemo/internal/bench"
	"github.com/mnemo-go/mnemo/engine"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"10k": 10_000, "100K": 100_000, "1m": 1_000_000, "2500": 2500} {
		if got, err := bench.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

// TestPrintTableLatencyHeader: the latency table's header reads as it did
// before the harness moved to this package ("latency (ms)", lower case,
// like every other label of the report); the move had capitalised it.
func TestPrintTableLatencyHeader(t *testing.T) {
	var b bytes.Buffer
	(&bench.Report{}).PrintTable(&b)
	if !strings.Contains(b.String(), "\nlatency (ms) ") {
		t.Fatalf("no \"latency (ms)\" header in:\n%s", b.String())
	}
}

// TestPrintTablePageFaults: the warm calls' page faults are printed under
// their allocations, and not at all when not counted.
func TestPrintTablePageFaults(t *testing.T) {
	var b bytes.Buffer
	r := bench.Report{LoadContextAllocs: bench.Allocs{Calls: 100, BytesPerCall: 4096, ObjectsPerCall: 10, PageFaultsPerCall: 68.9}}
	r.PrintTable(&b)
	if !strings.Contains(b.String(), "LoadContext page faults (minor)    68.9 per call\n") {
		t.Fatalf("no page fault line in:\n%s", b.String())
	}
	b.Reset()
	r.LoadContextAllocs.PageFaultsPerCall = 0
	r.PrintTable(&b)
	if strings.Contains(b.String(), "page faults") {
		t.Fatalf("a page fault line without a count:\n%s", b.String())
	}
}

// TestRunReopenFails: an engine open that fails partway through the run
// (the exactness phase's reopen: Ctrl-C lands there, or the directory went
// bad) is Run's error. Run's deferred close called Close on the nil engine
// the failed open left, and `mnemo bench` interrupted during "exactness of
// the vector index" died of a nil pointer dereference instead of exiting
// 130. Here the reopen fails because mnemo.db was replaced by a directory
// while the engine had it open.
func TestRunReopenFails(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work")
	o := bench.Options{Work: work, Size: 200, Resources: 2, Seed: 1, Batch: 10, Writers: 1, Queries: 5, Appends: 1, Exactness: 3, SnapshotMin: -1}
	logf := func(format string, args ...any) {
		if !strings.Contains(format, "exactness") {
			return
		}
		db := filepath.Join(work, engine.DatabaseFile)
		if err := os.Rename(db, db+".moved"); err != nil {
			t.Error(err)
		}
		if err := os.Mkdir(db, 0o700); err != nil {
			t.Error(err)
		}
	}
	rep, err := bench.Run(context.Background(), o, logf)
	if !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Fatalf("Run: %+v, %v; want the reopen's ErrDatabaseCorrupt", rep, err)
	}
}
