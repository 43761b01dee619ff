package msgstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// BenchmarkStoreVectors stores what one drain batch of the outbox stores
// on SQLite: 512 vectors written as new rows (the previous iteration's
// deleted first), as empty hash-384 rows (derived.go) and as 384-value
// blobs. It prices the embeddings table's writes, its triggers included
// (schema migration 11: BENCHMARKS.md, "Open: the damaged-embedding scan
// on SQLite"). The -guarded case stores each vector only while its message
// has the name, content and tool calls given (NewVectors.Sources), as the
// engine's drainer does for a stored embedder.
func BenchmarkStoreVectors(b *testing.B) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "mnemo.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := msgstore.New(db)
	msgs := make([]msgstore.Message, 512)
	ids := make([]string, len(msgs))
	for i := range msgs {
		msgs[i] = msgstore.Message{ID: fmt.Sprintf("m%04d", i), Role: "user", Content: fmt.Sprintf("message %d", i)}
		ids[i] = msgs[i].ID
	}
	storeThread(b, s, "t1", "r1", msgs)
	vecs, _ := recall.HashEmbedder{}.Embed(ctx, ids)
	sources := make([]msgstore.VectorSource, len(msgs))
	for i := range msgs {
		sources[i] = msgstore.SourceOf(&msgs[i])
	}
	for _, bc := range []struct {
		name, embedder string
		sources        []msgstore.VectorSource
	}{{"derived", recall.HashID, nil}, {"blobs", "full-384", nil}, {"blobs-guarded", "full-384", sources}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			v := msgstore.NewVectors{Embedder: bc.embedder, Dims: recall.HashDims, IDs: ids, Vectors: vecs, Sources: bc.sources}
			for b.Loop() {
				if err := s.DeleteEmbeddings(ctx, bc.embedder); err != nil {
					b.Fatal(err)
				}
				if err := s.StoreVectors(ctx, v, nil); err != nil {
					b.Fatal(err)
				}
			}
			if n, err := s.EmbeddedIDs(ctx, bc.embedder); err != nil || len(n) != len(ids) {
				b.Fatalf("%d stored, %v; want %d", len(n), err, len(ids))
			}
		})
	}
}
