package recall

import (
	"context"
	"slices"
	"testing"
)

// TestSnapshotColumns: a snapshot of sparse (hash-384) vectors holds the
// column blocks, and a shard read from it has them mapped and ready,
// equal to its codes; a removal and a put keep them equal (the moved and
// vacated rows); searches by columns and by rows agree; a dense index's
// snapshot holds none.
func TestSnapshotColumns(t *testing.T) {
	s := fuzzShard(t, 2600) // 3 vector chunks
	if !s.vx.snapColumns() {
		t.Fatalf("hash-384 rows not sparse: %d zeros in %d rows", s.vx.zeros, s.vx.len())
	}
	got, err := loadSnapshotBytes(t, snapshotBytes(t, s))
	if err != nil {
		t.Fatal(err)
	}
	x := got.vx
	if int(x.colsBuilt.Load()) != len(x.chunks) || len(x.chunks) != 3 {
		t.Fatalf("%d of %d column blocks ready after the load", x.colsBuilt.Load(), len(x.chunks))
	}
	for _, cc := range x.cols {
		if !cc.mem.fileBacked() {
			t.Fatal("a column block was not mapped from the file")
		}
	}
	checkCols(t, x)
	search := func() []scored {
		return x.search(normalised(HashVector("two weeks in Lisbon item3")), 10, nil)
	}
	byCols := search()
	colPass = colsOff
	byRows := search()
	colPass = colsAuto
	if len(byCols) == 0 || !slices.Equal(byCols, byRows) {
		t.Fatalf("by columns %v, by rows %v", byCols, byRows)
	}
	ctx := context.Background()
	got.removeDoc(ctx, "m0010") // the last row moves into its slot
	if err := got.putVector(ctx, "m0014", HashVector("a new vector for m0014")); err != nil {
		t.Fatal(err)
	}
	checkCols(t, x)
	if x.cols[0].mem.fileBacked() || x.cols[2].mem.fileBacked() || !x.cols[1].mem.fileBacked() {
		t.Fatal("the column blocks written to are not marked so (or the one not written to is)")
	}

	d := fuzzShard(t, 300)
	d.vx.zeros = 0 // as dense as use-lite's
	b := snapshotBytes(t, d)
	dense, err := loadSnapshotBytes(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if dense.vx.colsBuilt.Load() != 0 {
		t.Fatal("a dense index's snapshot holds column blocks")
	}
}
