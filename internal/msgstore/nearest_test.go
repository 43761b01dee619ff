package msgstore_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestVectorsReachNearest (Postgres only: SQLite's vectors are searched by
// recall in memory): vectors stored through the message store are
// pgvector values that pgstore.Nearest finds through the embedder's HNSW
// index, within the resource, nearest first; a replaced vector is found
// as replaced.
func TestVectorsReachNearest(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	db, err := pgstore.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db) // waits for background prepares (storetest.Backend.OpenDB)
	s := msgstore.New(db)
	storeThread(t, s, "t1", "r1", toolConversation[:3])
	storeThread(t, s, "t2", "r2", []msgstore.Message{{ID: "n1", Role: "user", Content: "other"}})
	pool, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	e, err := pgstore.EnsureEmbedder(ctx, pool, "e", 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutVectors(ctx, "e", 2, []string{"m1", "m2", "m3", "n1"}, [][]float32{{1, 0}, {0, 1}, {0.6, 0.8}, {1, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutVectors(ctx, "e", 2, []string{"m2"}, [][]float32{{-1, 0}}); err != nil {
		t.Fatal(err)
	}
	got, err := pgstore.Nearest(ctx, pool, e, "r1", []float32{1, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []pgstore.Neighbor{{MessageID: "m1", Cosine: 1}, {MessageID: "m3", Cosine: 0.6}, {MessageID: "m2", Cosine: -1}}
	if len(got) != len(want) {
		t.Fatalf("Nearest = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].MessageID != want[i].MessageID || got[i].Cosine < want[i].Cosine-1e-6 || got[i].Cosine > want[i].Cosine+1e-6 {
			t.Errorf("Nearest[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
