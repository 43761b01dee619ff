package recall_test

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestSnapshotTruncatedWhileMadeBehind: the entries a loaded snapshot's
// check makes behind the searches once it passed (snapshot_lazy.go) are
// read from the file's mapping; a file truncated in place after the check
// faults there. That fault drops the shard, as in a search, and the next
// searches answer from the Source's build; unguarded, it killed the
// process (SIGBUS: the child process below failed).
func TestSnapshotTruncatedWhileMadeBehind(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapped snapshots and SIGBUS on truncation: Linux")
	}
	if os.Getenv(faultChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotTruncatedWhileMadeBehind$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), faultChildEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the child process failed: %v\n%s", err, out)
		}
		return
	}
	ctx := context.Background()
	defer recall.SetMakeBehindForTest(recall.SetMakeBehindForTest(false))
	st, r := newSnapStore(t, 3000, 43)
	dir, file := savedSnapshot(t, st)
	ix := snapIndex(t, st, dir)
	queries := snapQueries(st, r, 12)
	if _, err := ix.Search(ctx, queries[0]); err != nil {
		t.Fatal(err)
	}
	ix.WaitVerifiedForTest()
	if made, total := ix.MadeEntriesForTest(st.res); total == 0 || made == total {
		t.Fatalf("%d of %d entries made before the truncation, want some left", made, total)
	}
	if err := os.Truncate(file, 4096); err != nil {
		t.Fatal(err)
	}
	recall.SetMakeBehindForTest(true)
	ix.MakeRestForTest(st.res)
	if _, total := ix.MadeEntriesForTest(st.res); total != 0 {
		t.Fatalf("the shard still serves from its truncated file (%d entries)", total)
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
		if !reflect.DeepEqual(hitList(got), hitList(want)) {
			t.Fatalf("query %d after the drop: %s\nwant %s", i, hitList(got), hitList(want))
		}
	}
}
