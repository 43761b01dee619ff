package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestSnapshotGarbledInPlace: a snapshot file copied over in place while a
// shard serves from its mapping, keeping its size and modification time
// (which the identity check cannot see), must not make searches panic.
// Before, the garbled offsets and term ids read through the mapping made
// every search of the resource panic with an index out of range (the
// fault guard re-raised anything but a memory fault), until the process
// restarted: a library caller crashed, `mnemo serve` dropped the
// connection. Now a search that panics with a runtime error checks the
// files of the loaded shards against their checksums, drops the shard
// whose file fails (as a fault does) and runs again on the shard built
// from the Source, whose answers are the build's.
func TestSnapshotGarbledInPlace(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapped snapshots: Linux")
	}
	ctx := context.Background()
	st, r := newSnapStore(t, 400, 23)
	dir, file := savedSnapshot(t, st)
	ix := snapIndex(t, st, dir)
	fresh := snapIndex(t, st, "")
	queries := snapQueries(st, r, 24)
	if _, err := ix.Search(ctx, queries[0]); err != nil {
		t.Fatal(err)
	}
	ix.WaitVerifiedForTest()
	garbleKeepingStamp(t, file, r)
	drops := recall.SnapshotDropsForTest()
	for i, q := range queries {
		got, err := searchNoPanic(ix, q)
		if err != nil {
			t.Fatalf("query %d (%s) after the garble: %v", i, q.Options.Mode, err)
		}
		if recall.SnapshotDropsForTest() == drops {
			continue // no panic yet: wrong scores are possible (documented)
		}
		want, err := fresh.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := hitList(got), hitList(want); a != b {
			t.Fatalf("query %d (%s): after the drop\n%s\nthe build answers\n%s", i, q.Options.Mode, a, b)
		}
	}
	if recall.SnapshotDropsForTest() == drops {
		t.Fatal("no search met the garbled mapping (the test garbles too little)")
	}
}

// garbleKeepingStamp writes random bytes over most of path in place and
// restores its modification time.
func garbleKeepingStamp(t *testing.T, path string, r *rand.Rand) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, fi.Size()-64)
	for i := range junk {
		junk[i] = byte(r.Uint32())
	}
	if _, err := f.WriteAt(junk, 32); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// searchNoPanic runs q, failing on a panic instead of crashing the test
// binary.
func searchNoPanic(ix *recall.Index, q recall.Query) (res *recall.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return ix.Search(context.Background(), q)
}

// TestSnapshotGarbledBlock: a byte of a snapshot's contents or term ids
// changed under good sums of its parts (format 10: those regions are
// checked by block on first use, snapshot_blocks.go) never reaches an
// answer. Every search answers as the build does: those that meet the
// block drop the shard and run again on the shard built from the Source,
// and one of them meets it; a removal meets it too (it reads, then zeroes,
// the message's bytes).
func TestSnapshotGarbledBlock(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapped snapshots: Linux")
	}
	ctx := context.Background()
	for _, region := range []string{"contents", "term ids"} {
		t.Run(region, func(t *testing.T) {
			st, r := newSnapStore(t, 400, 29)
			dir, file := savedSnapshot(t, st)
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, _, regs := recall.SnapshotRegionsForTest(b)
			from, to := regs[0], regs[1]
			if region == "term ids" {
				from, to = regs[2], regs[3]
			}
			b[from+(to-from)/3] ^= 0x04
			if err := os.WriteFile(file, b, 0o600); err != nil {
				t.Fatal(err)
			}
			ix, fresh := snapIndex(t, st, dir), snapIndex(t, st, "")
			loads, drops := recall.SnapshotLoadsForTest(), recall.SnapshotDropsForTest()
			for i, q := range snapQueries(st, r, 24) {
				got, err := searchNoPanic(ix, q)
				if err != nil {
					t.Fatalf("query %d (%s): %v", i, q.Options.Mode, err)
				}
				want, err := fresh.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := hitList(got), hitList(want); a != b {
					t.Fatalf("query %d (%s):\n%s\nthe build answers\n%s", i, q.Options.Mode, a, b)
				}
			}
			if recall.SnapshotLoadsForTest() != loads+1 {
				t.Fatal("the snapshot was not used")
			}
			if recall.SnapshotDropsForTest() == drops {
				if err := ix.Remove(ctx, []string{st.allDocs()[0].ID}, st.res); err != nil {
					t.Fatal(err)
				}
			}
			if recall.SnapshotDropsForTest() != drops+1 {
				t.Fatal("the garbled block was not met")
			}
		})
	}
}
