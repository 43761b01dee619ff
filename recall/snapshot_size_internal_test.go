package recall

import (
	"os"
	"slices"
	"testing"
)

// TestSnapshotDueSizeFromFile: after a restart, a resource not loaded yet
// whose snapshot holds 1,100 messages is not due after 150 writes (its
// file's header gives its size); a resource without a snapshot file, or
// with a file that is not a snapshot, is due at SnapshotMin/2 writes as
// before. Without fileMessages every one of them was due at 128 writes.
func TestSnapshotDueSizeFromFile(t *testing.T) {
	sn := &snapshots{dir: t.TempDir(), min: DefaultSnapshotMin, emb: HashEmbedder{}, kick: make(chan struct{}, 1),
		changes: map[string]int{}, sizes: map[string]int{}, recent: map[string]int{}, pace: map[string]int{}}
	if err := os.WriteFile(sn.path("res"), snapshotBytes(t, fuzzShard(t, 1100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sn.path("junk"), []byte("mnemosnp but not a snapshot"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"res", "new", "junk"} {
		sn.wrote(r, 150)
	}
	got := sn.due(false)
	slices.Sort(got)
	if want := []string{"junk", "new"}; !slices.Equal(got, want) {
		t.Fatalf("due after 150 writes each = %v, want %v", got, want)
	}
	if sn.sizes["res"] != 1100 {
		t.Errorf("size recorded from res's snapshot file = %d, want 1100", sn.sizes["res"])
	}
	sn.wrote("res", 950)
	sn.tick() // two intervals without writes: not a bulk import any more
	sn.tick()
	if got := sn.due(false); !slices.Contains(got, "res") {
		t.Errorf("due after 1,100 writes = %v, want res in it", got)
	}
}
