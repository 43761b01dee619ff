package engine

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestPostgresDamageImpossible: on Postgres an embedder with an HNSW index
// (every embedder of up to pgstore.MaxHalfvecIndexDims dimensions) cannot
// hold a stored embedding of the wrong length: the CHECK keeps dims equal
// to vector_dims(vector), and the index's expression vector::vector(N)
// refuses a row of other dimensions. So Open does not scan every stored
// vector for damage there (dropDamagedEmbeddings: 185-430 ms at 10k
// embeddings, BENCHMARKS.md "Postgres open: the damaged-embedding scan").
// SQLite scans only when its triggers saw a damaged row written.
func TestPostgresDamageImpossible(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Config{Postgres: pgtest.DSN(t), Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if may, err := e.mayHoldDamaged(ctx); err != nil || may {
		t.Fatalf("Postgres with an indexed embedder: mayHoldDamaged = %v, %v; damage is impossible, want no scan at open", may, err)
	}
	if _, err := e.Append(ctx, AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []Message{{Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dims, vec string }{
		{"OtherDims", "3", "[1,2,3]"}, // the index's vector::vector(384) refuses it
		{"DimsLie", "384", "[1,2,3]"}, // the CHECK refuses it
	} {
		tag, err := e.pool.Exec(ctx, `UPDATE embeddings SET dims = `+c.dims+`, vector = '`+c.vec+`' WHERE embedder = 'hash-384'`)
		if err == nil {
			t.Errorf("%s: %d hash-384 rows of %s dims %s were stored; the skip relies on their being refused", c.name, tag.RowsAffected(), c.dims, c.vec)
		}
	}
	sq, err := Open(ctx, Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	if _, err := sq.Append(ctx, AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []Message{{Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	if err := sq.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if may, err := sq.mayHoldDamaged(ctx); err != nil || may {
		t.Fatalf("SQLite, nothing damaged: mayHoldDamaged = %v, %v; want false (no scan at open)", may, err)
	}
	if _, err := sq.db.ExecContext(ctx, `UPDATE embeddings SET vector = x'01020304'`); err != nil {
		t.Fatal(err)
	}
	if may, err := sq.mayHoldDamaged(ctx); err != nil || !may {
		t.Fatalf("SQLite, a blob written too short: mayHoldDamaged = %v, %v; want true (the scan at open)", may, err)
	}
}
