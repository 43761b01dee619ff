package msgstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDerivedVectors: hash-384 vectors are stored on SQLite as empty blobs
// and read back computed from their messages (name, content, tool calls,
// a truncated tool result), bit-equal to the vectors the embedder gave for
// the documents ResourceDocs shows; a vector stored in full by an older
// build reads as before and is not damaged; a damaged blob still is;
// Vectors (the drainer's reuse of stored vectors) reads none.
// Postgres keeps the vectors. Before derived.go every row held 1,536 bytes.
func TestDerivedVectors(t *testing.T) { forEachBackend(t, testDerivedVectors) }

func testDerivedVectors(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, _ := openTools(t, b)
	var ids, texts []string
	if err := s.ResourceDocs(ctx, "r1", func(d *recall.Doc) error {
		ids, texts = append(ids, d.ID), append(texts, d.Text())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	vecs, _ := recall.HashEmbedder{}.Embed(ctx, texts)
	want := map[string][]float32{}
	for i, id := range ids {
		want[id] = vecs[i]
	}
	if err := s.PutVectors(ctx, recall.HashID, recall.HashDims, ids, vecs); err != nil {
		t.Fatal(err)
	}
	sqlite := b.Dialect == store.SQLite
	var empty int
	if err := db.QueryRowContext(ctx, b.text(`SELECT COUNT(*) FROM embeddings WHERE embedder = ? AND length(vector) = 0`,
		`SELECT COUNT(*) FROM embeddings WHERE embedder = ? AND vector_dims(vector) = 0`), recall.HashID).Scan(&empty); err != nil {
		t.Fatal(err)
	}
	if wantEmpty := map[bool]int{true: len(ids)}[sqlite]; empty != wantEmpty {
		t.Errorf("%d hash-384 rows with an empty vector, want %d", empty, wantEmpty)
	}
	check := func(when string, damaged ...string) {
		t.Helper()
		got := map[string][]float32{}
		if err := s.ResourceVectors(ctx, "r1", recall.HashID, func(id string, v []float32) error { got[id] = slices.Clone(v); return nil }); err != nil {
			t.Fatal(err)
		}
		byID := map[string][]float32{}
		if err := s.MessageVectors(ctx, recall.HashID, ids, func(id string, v []float32) error { byID[id] = slices.Clone(v); return nil }); err != nil {
			t.Fatal(err)
		}
		exp := map[string][]float32{}
		for id, v := range want {
			exp[id] = v
		}
		for _, id := range damaged {
			exp[id] = nil
		}
		for name, m := range map[string]map[string][]float32{"ResourceVectors": got, "MessageVectors": byID} {
			if len(m) != len(exp) {
				t.Errorf("%s: %s gave %d vectors, want %d", when, name, len(m), len(exp))
			}
			for id, v := range exp {
				if !slices.Equal(m[id], v) {
					t.Errorf("%s: %s %s differs from its embedding", when, name, id)
				}
			}
		}
		n, ex, err := s.CountDamaged(ctx, recall.HashID, recall.HashDims)
		if err != nil || n != int64(len(damaged)) {
			t.Errorf("%s: CountDamaged = %d (%s), %v; want %d", when, n, ex, err, len(damaged))
		}
	}
	check("stored")
	if !sqlite {
		return
	}
	// A vector stored in full by an older build.
	if _, err := db.ExecContext(ctx, `UPDATE embeddings SET vector = ? WHERE message_id = 'm3'`, msgstore.EncodeVector(want["m3"])); err != nil {
		t.Fatal(err)
	}
	check("m3 in full")
	if _, err := db.ExecContext(ctx, `UPDATE embeddings SET vector = x'01020304' WHERE message_id = 'm5'`); err != nil {
		t.Fatal(err)
	}
	check("m5 damaged", "m5")
	if got, err := s.Vectors(ctx, recall.HashID, recall.HashDims, ids); err != nil || len(got) != 0 {
		t.Errorf("Vectors = %d entries, %v; want none (they cost less to compute than to read)", len(got), err)
	}
}
