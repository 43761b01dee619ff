package recall_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// faultChildEnv makes the test binary run TestSnapshotTruncatedUnderMapping's
// searches itself (a SIGBUS would kill it; the parent reports that).
const faultChildEnv = "MNEMO_SNAPSHOT_FAULT_CHILD"

// TestSnapshotTruncatedUnderMapping: a snapshot file truncated in place
// while a shard serves from its mapping neither crashes the process nor
// fails or changes an answer: every search (lexical, vector, hybrid;
// filters, thread scope, exclusions) answers as a build from the Source
// does, the shard is dropped once and the truncated file deleted. "before" truncates
// between two searches (the identity check sees it); "during" truncates
// after the check, while the search holds the shard, so that the search
// faults reading the mapping (the fault is recovered and the search runs
// again). The searches run in a child process: before this, the first
// search after the truncation died of SIGBUS.
func TestSnapshotTruncatedUnderMapping(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapped snapshots and SIGBUS on truncation: Linux")
	}
	if os.Getenv(faultChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotTruncatedUnderMapping$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), faultChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the child process failed: %v\n%s", err, out)
		}
		return
	}
	for _, when := range []string{"before", "during"} {
		t.Run(when, func(t *testing.T) { truncatedUnderMapping(t, when) })
	}
}

func truncatedUnderMapping(t *testing.T, when string) {
	ctx := context.Background()
	st, r := newSnapStore(t, 400, 21)
	dir, file := savedSnapshot(t, st)
	var told []string
	ix := snapIndexWith(t, st, dir, func(c *recall.Config) {
		c.SnapshotDropped = func(resource, detail string) { told = append(told, resource) }
	})
	fresh := snapIndex(t, st, "")
	queries := snapQueries(st, r, 24)
	loads, drops := recall.SnapshotLoadsForTest(), recall.SnapshotDropsForTest()
	if _, err := ix.Search(ctx, queries[0]); err != nil {
		t.Fatal(err)
	}
	if recall.SnapshotLoadsForTest() != loads+1 {
		t.Fatal("the shard was not read from its snapshot")
	}
	ix.WaitVerifiedForTest()
	truncate := func() {
		if err := os.Truncate(file, 4096); err != nil {
			t.Error(err)
		}
	}
	if when == "before" {
		truncate()
	} else {
		recall.SetShardCheckedHookForTest(func() {
			recall.SetShardCheckedHookForTest(nil)
			truncate()
		})
		defer recall.SetShardCheckedHookForTest(nil)
	}
	for i, q := range queries {
		got, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
		want, err := fresh.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := hitList(got), hitList(want); a != b {
			t.Fatalf("query %d (%s): after the truncation\n%s\nthe build answers\n%s", i, q.Options.Mode, a, b)
		}
	}
	if d := recall.SnapshotDropsForTest() - drops; d != 1 || len(told) != 1 || told[0] != st.res {
		t.Errorf("%d shards dropped, Config.SnapshotDropped told of %q; want 1, %q", d, told, st.res)
	}
	// Deleted; the writer may have written the rebuilt shard's since.
	if fi, err := os.Stat(file); err == nil && fi.Size() == 4096 {
		t.Error("the truncated snapshot is still there")
	}
}

// savedSnapshot writes st's resource's snapshot into a new directory and
// returns the directory and the one file written.
func savedSnapshot(t *testing.T, st *snapStore) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	if err := snapIndex(t, st, dir).SaveSnapshotForTest(context.Background(), st.res); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
	if len(files) != 1 {
		t.Fatalf("%d snapshot files, want 1", len(files))
	}
	return dir, files[0]
}

// TestSnapshotTruncatedDuringWrite: a snapshot file truncated after a
// write's identity check (Remove of an erasure, Add of a message replacing
// one) no longer kills the process with SIGBUS: the write's fault in the
// mapping is recovered, the shard dropped and built again from the Source,
// and the answers are a fresh build's. The writes run in a child process:
// before, the child died of SIGBUS in Remove.
func TestSnapshotTruncatedDuringWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapped snapshots and SIGBUS on truncation: Linux")
	}
	if os.Getenv(faultChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotTruncatedDuringWrite$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), faultChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the child process failed: %v\n%s", err, out)
		}
		return
	}
	for _, op := range []string{"Remove", "Add"} {
		t.Run(op, func(t *testing.T) {
			ctx := context.Background()
			st, r := newSnapStore(t, 400, 22)
			dir := t.TempDir()
			if err := snapIndex(t, st, dir).SaveSnapshotForTest(ctx, st.res); err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.snap"))
			ix := snapIndex(t, st, dir)
			queries := snapQueries(st, r, 12)
			if _, err := ix.Search(ctx, queries[0]); err != nil {
				t.Fatal(err)
			}
			ix.WaitVerifiedForTest()
			recall.SetShardCheckedHookForTest(func() {
				recall.SetShardCheckedHookForTest(nil)
				if err := os.Truncate(files[0], 4096); err != nil {
					t.Error(err)
				}
			})
			defer recall.SetShardCheckedHookForTest(nil)
			docs := st.allDocs()
			st.mu.Lock()
			th := st.threads[docs[0].ThreadID]
			if op == "Remove" {
				st.threads[docs[0].ThreadID] = th[1:] // erased from the store first, as the engine does
			} else {
				th[0].Content = "a replaced turn about zebras"
			}
			d := th[0]
			st.mu.Unlock()
			var err error
			if op == "Remove" {
				err = ix.Remove(ctx, []string{docs[0].ID}, st.res)
			} else {
				err = ix.Add(ctx, []recall.Doc{d}, nil)
			}
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			fresh := snapIndex(t, st, "")
			for i, q := range queries {
				got, err := ix.Search(ctx, q)
				if err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
				want, err := fresh.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := hitList(got), hitList(want); a != b {
					t.Fatalf("query %d (%s): after the truncation\n%s\nthe build answers\n%s", i, q.Options.Mode, a, b)
				}
			}
		})
	}
}
