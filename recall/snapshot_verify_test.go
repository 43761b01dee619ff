package recall_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestSnapshotCheckAfterFirstSearch: the background check of a loaded
// snapshot's vector part starts once the search that loaded the shard has
// ranked its hits, not beside it (on two cores it took the other core from
// that first search: issue 14), and then it runs: WaitVerifiedForTest
// returns with the part verified, without waiting for verifyWait (set to
// an hour here). Before, the check had passed while the first search
// still held the shard.
func TestSnapshotCheckAfterFirstSearch(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(recall.SetVerifyWaitForTest(time.Hour))
	st, r := newSnapStore(t, 400, 31)
	dir, _ := savedSnapshot(t, st)
	ix := snapIndex(t, st, dir)
	q := snapQueries(st, r, 1)[0]
	verified0, _ := recall.SnapshotChecksForTest()
	during := int64(-1)
	recall.SetShardCheckedHookForTest(func() {
		recall.SetShardCheckedHookForTest(nil)
		// Time for a check started at the load to finish (400 messages:
		// well under a millisecond of reading).
		time.Sleep(200 * time.Millisecond)
		v, _ := recall.SnapshotChecksForTest()
		during = v - verified0
	})
	defer recall.SetShardCheckedHookForTest(nil)
	loads := recall.SnapshotLoadsForTest()
	if _, err := ix.Search(ctx, q); err != nil {
		t.Fatal(err)
	}
	if recall.SnapshotLoadsForTest() != loads+1 {
		t.Fatal("the shard was not read from its snapshot")
	}
	if during != 0 {
		t.Errorf("%d vector parts checked while the first search held the shard, want 0", during)
	}
	done := make(chan struct{})
	go func() { ix.WaitVerifiedForTest(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the check did not run after the first search")
	}
	if v, _ := recall.SnapshotChecksForTest(); v != verified0+1 {
		t.Errorf("%d vector parts checked after the first search, want 1", v-verified0)
	}
}
