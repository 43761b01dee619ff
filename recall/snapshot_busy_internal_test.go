package recall

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestSnapshotWaitsForBulkImport: a resource taking writes at a bulk
// import's pace gets no snapshot at the sizes that are due otherwise; once
// the pace drops (two ticks without it) the snapshot is due, and one
// snapshotMaxBehind writes behind it is due however busy; at close it is
// due at once. A resource written at an agent's pace is due as before.
func TestSnapshotWaitsForBulkImport(t *testing.T) {
	sn := &snapshots{min: DefaultSnapshotMin, kick: make(chan struct{}, 1),
		changes: map[string]int{}, sizes: map[string]int{}, recent: map[string]int{}, pace: map[string]int{}}
	// An agent: a few writes each tick, up to SnapshotMin/2 in all.
	for range DefaultSnapshotMin / 2 / 8 {
		sn.wrote("agent", 8)
		sn.tick()
	}
	// An import: 3,000 writes a tick (1,500 a second) up to 20,000; a
	// slow one (a loaded machine's drainer): 360 a tick up to 2,400.
	for i := 0; i < 20_000; i += 500 {
		sn.wrote("import", 500)
		sn.wrote("slow", 60)
		if i%3000 == 2500 {
			sn.tick()
		}
	}
	if got := sn.due(false); !slices.Equal(got, []string{"agent"}) {
		t.Fatalf("due while importing = %v, want [agent]", got)
	}
	if got := sn.due(true); !slices.Contains(got, "import") {
		t.Fatalf("due at close = %v, want import in it", got)
	}
	sn.tick() // the import ended: the last interval still had its pace
	if slices.Contains(sn.due(false), "import") {
		t.Fatal("due one tick after the import, within an interval at its pace")
	}
	sn.tick()
	if got := sn.due(false); !slices.Contains(got, "import") || !slices.Contains(got, "slow") {
		t.Fatalf("due after the imports = %v, want import and slow in it", got)
	}
	sn.take("import")
	for i := 0; i < snapshotMaxBehind; i += 1000 {
		if slices.Contains(sn.due(false), "import") {
			t.Fatalf("due during a second import after %d writes, want %d", i, snapshotMaxBehind)
		}
		sn.wrote("import", 1000)
		if i%3000 == 2000 {
			sn.tick()
		}
	}
	if got := sn.due(false); !slices.Contains(got, "import") {
		t.Fatalf("due %d writes behind during an import = %v, want import in it", snapshotMaxBehind, got)
	}
}

// TestIndexerCountsOneWrite: a message indexed and embedded in one
// Indexer.Update counts one write towards its resource's snapshot (it
// counted two: the lexical write and the vector, so snapshots fell due at
// half the size TestSnapshotSchedule sets); a vector added later counts one.
func TestIndexerCountsOneWrite(t *testing.T) {
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	ix := &Index{cfg: Config{Lexical: lex, Source: emptySource{}}, emb: HashEmbedder{}, shards: map[string]*shard{}}
	ix.snap = &snapshots{min: DefaultSnapshotMin, kick: make(chan struct{}, 1),
		changes: map[string]int{}, sizes: map[string]int{}, recent: map[string]int{}, pace: map[string]int{}}
	defer lex.Close()
	docs := make([]Doc, 40)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprintf("m%d", i), ThreadID: "t", ResourceID: "r", Seq: int64(i + 1), Role: "user", Content: fmt.Sprintf("message %d", i)}
	}
	x := Indexer{Index: ix, Store: &mapVectors{}}
	if out, err := x.Update(context.Background(), docs, true); err != nil || out.Embedded != len(docs) || out.Lexical != nil {
		t.Fatalf("Update = %+v, %v", out, err)
	}
	if got := ix.snap.changes["r"]; got != len(docs) {
		t.Errorf("writes counted for %d messages indexed and embedded: %d", len(docs), got)
	}
	if err := ix.AddVectors(context.Background(), "r", []string{"m1"}, [][]float32{HashVector("again")}); err != nil {
		t.Fatal(err)
	}
	if got := ix.snap.changes["r"]; got != len(docs)+1 {
		t.Errorf("writes counted after one more vector: %d, want %d", got, len(docs)+1)
	}
}

// mapVectors is a VectorStore in memory.
type mapVectors struct{ m map[string][]float32 }

func (v *mapVectors) Vectors(_ context.Context, _ string, _ int, ids []string) (map[string][]float32, error) {
	out := map[string][]float32{}
	for _, id := range ids {
		if x, ok := v.m[id]; ok {
			out[id] = x
		}
	}
	return out, nil
}

func (v *mapVectors) PutVectors(_ context.Context, _ string, _ int, ids []string, vecs [][]float32) error {
	if v.m == nil {
		v.m = map[string][]float32{}
	}
	for i, id := range ids {
		v.m[id] = vecs[i]
	}
	return nil
}
