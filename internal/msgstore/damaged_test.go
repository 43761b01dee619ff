package msgstore_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDamageSuspected: on SQLite the schema's triggers mark an embedder
// whenever a row of it is written damaged, by any statement, so that
// DamageSuspected (what Open reads instead of every stored vector) is
// true whenever CountDamaged (every row read) finds one, and false for
// what the engine writes; DropDamaged deletes the rows and clears the
// mark, and a row damaged after that is marked again. On Postgres it is
// always true (the engine decides by the HNSW index).
func TestDamageSuspected(t *testing.T) { forEachBackend(t, testDamageSuspected) }

func testDamageSuspected(t *testing.T, b backend) {
	ctx := context.Background()
	if b.Dialect == store.Postgres {
		s, _, _ := openTools(t, b)
		if may, err := s.DamageSuspected(ctx, "e", 2); err != nil || !may {
			t.Fatalf("DamageSuspected on Postgres = %v, %v; want true", may, err)
		}
		return
	}
	hash := func(t *testing.T, s interface {
		PutVectors(context.Context, string, int, []string, [][]float32) error
	}) {
		t.Helper()
		ids := []string{"m1", "m2", "m3", "n1"}
		vecs, _ := recall.HashEmbedder{}.Embed(ctx, ids)
		if err := s.PutVectors(ctx, recall.HashID, recall.HashDims, ids, vecs); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		embedder string // the embedder asked about; dims 2, or 384 for hash-384
		dims     int
		damage   []string // statements run after the engine's writes
		want     bool
	}{
		{name: "StoredByEngine", embedder: "e", dims: 2},
		{name: "OtherDimsAsked", embedder: "e", dims: 3, want: true}, // the same id, another dimension: every row
		{name: "BlobTooShort", embedder: "e", dims: 2, damage: []string{`UPDATE embeddings SET vector = x'00' WHERE message_id = 'm3'`}, want: true},
		{name: "BlobEmpty", embedder: "e", dims: 2, damage: []string{`UPDATE embeddings SET vector = x'' WHERE message_id = 'm3'`}, want: true},
		{name: "ConsistentOtherDims", embedder: "e", dims: 2, damage: []string{`UPDATE embeddings SET dims = 1, vector = x'0000803f' WHERE message_id = 'm3'`}, want: true},
		{name: "FirstRowOtherDims", embedder: "e", dims: 2, damage: []string{`UPDATE embeddings SET dims = 1, vector = x'0000803f' WHERE message_id = 'm1'`}, want: true},
		{name: "EveryRowOtherDims", embedder: "e", dims: 2, damage: []string{`UPDATE embeddings SET dims = 1, vector = x'0000803f'`}, want: true},
		{name: "InsertedOtherDims", embedder: "e", dims: 2, damage: []string{`DELETE FROM embeddings WHERE message_id = 'm4'`,
			`INSERT INTO embeddings (message_id, embedder, resource_id, dims, vector) VALUES ('m4', 'e', 'r1', 3, x'000000000000000000000000')`}, want: true},
		{name: "InsertedTooLong", embedder: "e", dims: 2, damage: []string{`INSERT OR REPLACE INTO embeddings (message_id, embedder, resource_id, dims, vector) VALUES ('m4', 'e', 'r1', 2, x'000000000000000000')`}, want: true},
		{name: "RenamedEmbedder", embedder: "e", dims: 2, damage: []string{`UPDATE embeddings SET embedder = 'e' WHERE embedder = 'f'`}, want: true},
		{name: "OtherEmbedderDamaged", embedder: "e", dims: 2, damage: []string{`UPDATE embeddings SET vector = x'00' WHERE embedder = 'f'`}},
		{name: "Derived", embedder: recall.HashID, dims: recall.HashDims},
		{name: "DerivedStoredInFull", embedder: recall.HashID, dims: recall.HashDims, damage: []string{`UPDATE embeddings SET vector = zeroblob(1536) WHERE message_id = 'm2' AND embedder = 'hash-384'`}},
		{name: "DerivedDamaged", embedder: recall.HashID, dims: recall.HashDims, damage: []string{`UPDATE embeddings SET vector = x'01020304' WHERE message_id = 'm2' AND embedder = 'hash-384'`}, want: true},
		{name: "DerivedOtherDims", embedder: recall.HashID, dims: recall.HashDims, damage: []string{`UPDATE embeddings SET dims = 2 WHERE message_id = 'm2' AND embedder = 'hash-384'`}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, db, _ := openTools(t, b)
			if err := s.PutVectors(ctx, "e", 2, []string{"m1", "m2", "m3", "m4", "n1"}, [][]float32{{1, 0}, {0, 1}, {0.6, 0.8}, {0.8, 0.6}, {1, 0}}); err != nil {
				t.Fatal(err)
			}
			if err := s.PutVectors(ctx, "f", 1, []string{"m5"}, [][]float32{{1}}); err != nil {
				t.Fatal(err)
			}
			hash(t, s)
			for _, q := range tc.damage {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			suspect := func() bool {
				t.Helper()
				may, err := s.DamageSuspected(ctx, tc.embedder, tc.dims)
				if err != nil {
					t.Fatal(err)
				}
				n, _, err := s.CountDamaged(ctx, tc.embedder, tc.dims)
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 && !may {
					t.Fatalf("%d damaged rows, not suspected: Open would keep them", n)
				}
				return may
			}
			if got := suspect(); got != tc.want {
				t.Fatalf("DamageSuspected = %v, want %v", got, tc.want)
			}
			if _, err := s.DropDamaged(ctx, tc.embedder, tc.dims); err != nil {
				t.Fatal(err)
			}
			if suspect() {
				t.Fatal("DamageSuspected after DropDamaged = true, want false")
			}
			// Stored again by the engine, then damaged after the last scan.
			vecs, _ := recall.HashEmbedder{}.Embed(ctx, []string{"a", "b"})
			for i := range vecs {
				vecs[i] = vecs[i][:tc.dims]
			}
			if err := s.PutVectors(ctx, tc.embedder, tc.dims, []string{"m1", "m2"}, vecs); err != nil {
				t.Fatal(err)
			}
			if suspect() {
				t.Fatal("DamageSuspected after the engine stored vectors again = true, want false")
			}
			if _, err := db.ExecContext(ctx, `UPDATE embeddings SET vector = x'00' WHERE embedder = ? AND message_id = 'm2'`, tc.embedder); err != nil {
				t.Fatal(err)
			}
			if !suspect() {
				t.Fatal("a row damaged after DropDamaged: DamageSuspected = false, want true")
			}
		})
	}
	t.Run("TriggerDropped", func(t *testing.T) {
		s, db, _ := openTools(t, b)
		if err := s.PutVectors(ctx, "e", 2, []string{"m1"}, [][]float32{{1, 0}}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `DROP TRIGGER embeddings_update_suspect`); err != nil {
			t.Fatal(err)
		}
		if may, err := s.DamageSuspected(ctx, "e", 2); err != nil || !may {
			t.Fatalf("DamageSuspected with a trigger dropped = %v, %v; want true (nothing marks what it misses)", may, err)
		}
	})
	t.Run("SuspectDamage", func(t *testing.T) {
		s, _, _ := openTools(t, b)
		if err := s.PutVectors(ctx, "e", 2, []string{"m1"}, [][]float32{{1, 0}}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // twice: one mark
			if err := s.SuspectDamage(ctx, "e"); err != nil {
				t.Fatal(err)
			}
		}
		if may, err := s.DamageSuspected(ctx, "e", 2); err != nil || !may {
			t.Fatalf("DamageSuspected after SuspectDamage = %v, %v; want true", may, err)
		}
		if n, err := s.DropDamaged(ctx, "e", 2); err != nil || n != 0 {
			t.Fatalf("DropDamaged = %d, %v; want 0", n, err)
		}
		if may, err := s.DamageSuspected(ctx, "e", 2); err != nil || may {
			t.Fatalf("DamageSuspected after DropDamaged = %v, %v; want false", may, err)
		}
	})
}
