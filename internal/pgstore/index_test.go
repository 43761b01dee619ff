package pgstore_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// seedMessages stores one thread per resource and n messages in each,
// with ids "<resource>-<i>".
func seedMessages(t *testing.T, pool *pgxpool.Pool, resources []string, n int) {
	t.Helper()
	ctx := t.Context()
	var rows [][]any
	for _, r := range resources {
		if _, err := pool.Exec(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ($1, $2, 0, 0)`, "th-"+r, r); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			rows = append(rows, []any{fmt.Sprintf("%s-%d", r, i), "th-" + r, r, int64(i + 1), "user", "text", int64(i) * 1000, int64(1), "d"})
		}
	}
	_, err := pool.CopyFrom(ctx, pgx.Identifier{"messages"},
		[]string{"id", "thread_id", "resource_id", "seq", "role", "content", "created_at", "tokens", "digest"}, pgx.CopyFromRows(rows))
	if err != nil {
		t.Fatal(err)
	}
}

// explain returns the text plan of sql after ANALYZE of the tables.
func explain(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	rows, err := pool.Query(t.Context(), "EXPLAIN "+sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

func randomUnit(rng *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var n float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

func TestVectorIndex(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t))
	ctx := t.Context()
	const dims, perResource = 16, 400
	resources := []string{"r0", "r1", "r2", "r3", "r4"}
	seedMessages(t, pool, resources, perResource)
	e, err := pgstore.EnsureEmbedder(ctx, pool, "hash:it's", dims)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pgstore.EnsureEmbedder(ctx, pool, "other", 3); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := map[string][]float32{}
	var rows [][]any
	for _, r := range resources {
		for i := range perResource {
			id := fmt.Sprintf("%s-%d", r, i)
			vecs[id] = randomUnit(rng, dims)
			rows = append(rows, []any{id, e.Name, r, dims, pgvector.NewVector(vecs[id])},
				[]any{id, "other", r, 3, pgvector.NewVector([]float32{1, 2, 3})})
		}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"embeddings"}, []string{"message_id", "embedder", "resource_id", "dims", "vector"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE messages, embeddings"); err != nil {
		t.Fatal(err)
	}
	topK := fmt.Sprintf(`SELECT message_id, 1 - (%[1]s <=> $1::vector(%[2]d)) FROM embeddings WHERE %[3]s
ORDER BY %[1]s <=> $1::vector(%[2]d) LIMIT 10`, e.Expr(), dims, e.Predicate())
	t.Run("IndexUsed", func(t *testing.T) {
		plan := explain(t, pool, topK, pgvector.NewVector(vecs["r3-7"]))
		if !strings.Contains(plan, "Index Scan using "+e.Index) {
			t.Fatalf("the cosine top-k does not use %s:\n%s", e.Index, plan)
		}
	})
	t.Run("Nearest", func(t *testing.T) {
		var id string
		var cos float64
		if err := pool.QueryRow(ctx, topK, pgvector.NewVector(vecs["r3-7"])).Scan(&id, &cos); err != nil {
			t.Fatal(err)
		}
		if id != "r3-7" || math.Abs(cos-1) > 1e-5 {
			t.Fatalf("nearest = %s (cos %.6f), want r3-7 (1)", id, cos)
		}
	})
	t.Run("MessageDeleteCascades", func(t *testing.T) {
		if _, err := pool.Exec(ctx, `DELETE FROM messages WHERE id = 'r4-0'`); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM embeddings WHERE message_id = 'r4-0'`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("embeddings of a deleted message = %d (%v), want 0", n, err)
		}
	})
	t.Run("DimsChecked", func(t *testing.T) {
		_, err := pool.Exec(ctx, `INSERT INTO embeddings VALUES ('r0-1', 'x', 'r0', 4, '[1,2,3]')`)
		if err == nil {
			t.Fatal("an embedding whose dims column disagrees with its vector was stored")
		}
	})
}

func TestEnsureEmbedder(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t))
	ctx := t.Context()
	t.Run("OnceUnderConcurrency", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() { _, errs[i] = pgstore.EnsureEmbedder(ctx, pool, "openai:small", 1536) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'embeddings_hnsw_%'`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("HNSW indexes = %d (%v), want 1", n, err)
		}
	})
	t.Run("HalfvecAbove2000", func(t *testing.T) {
		e, err := pgstore.EnsureEmbedder(ctx, pool, "openai:large", 3072)
		if err != nil {
			t.Fatal(err)
		}
		var def string
		if err := pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1`, e.Index).Scan(&def); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(def, "halfvec(3072)") || !strings.Contains(def, "halfvec_cosine_ops") {
			t.Fatalf("index of a 3072-dim embedder: %s", def)
		}
	})
	t.Run("NoIndexAbove4000", func(t *testing.T) {
		e, err := pgstore.EnsureEmbedder(ctx, pool, "huge", 5000)
		if err != nil || e.Index != "" {
			t.Fatalf("EnsureEmbedder(5000 dims) = %+v, %v; want no index", e, err)
		}
	})
	t.Run("ErrEmbedderDims", func(t *testing.T) {
		_, err := pgstore.EnsureEmbedder(ctx, pool, "openai:small", 768)
		if !errors.Is(err, pgstore.ErrEmbedderDims) {
			t.Fatalf("err = %v, want ErrEmbedderDims", err)
		}
	})
	// Last: it marks the schema migrated by a newer build.
	t.Run("ErrSchemaMigrated", func(t *testing.T) { testEnsureEmbedderMigrated(t, pool) })
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, c := range []struct {
			name string
			dims int
		}{{"", 3}, {"a", 0}, {"a", 16001}, {"a\x00b", 3}, {"\xff", 3}} {
			if _, err := pgstore.EnsureEmbedder(ctx, pool, c.name, c.dims); !errors.Is(err, pgstore.ErrInvalid) {
				t.Errorf("EnsureEmbedder(%q, %d) = %v, want ErrInvalid", c.name, c.dims, err)
			}
		}
	})
}

// testEnsureEmbedderMigrated: once a newer build has migrated the schema
// (its schema_version row), registering a new embedder is refused with
// ErrSchemaMigrated and creates neither its row nor its index, as every
// other write is; one registered before is still read. Before, the
// registration wrote through the pool, which no write check wraps.
func testEnsureEmbedderMigrated(t *testing.T, pool *pgxpool.Pool) {
	ctx := t.Context()
	counts := func() (rows, indexes int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM embedders),
			(SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'embeddings_hnsw_%')`).Scan(&rows, &indexes); err != nil {
			t.Fatal(err)
		}
		return rows, indexes
	}
	rows, indexes := counts()
	if _, err := pool.Exec(ctx, `INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)`, pgstore.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err := pgstore.EnsureEmbedder(ctx, pool, "after-migration", 8)
	if !errors.Is(err, pgstore.ErrSchemaMigrated) {
		t.Fatalf("EnsureEmbedder of a new embedder after the migration: %v, want ErrSchemaMigrated", err)
	}
	if r, i := counts(); r != rows || i != indexes {
		t.Fatalf("EnsureEmbedder after the migration wrote: %d embedders and %d indexes before, %d and %d after", rows, indexes, r, i)
	}
	if _, err := pgstore.EnsureEmbedder(ctx, pool, "openai:small", 1536); err != nil {
		t.Fatalf("EnsureEmbedder of a registered embedder after the migration: %v, want it read", err)
	}
}
