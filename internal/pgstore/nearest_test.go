package pgstore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestNearest searches one resource holding 5 % of an embedder's vectors:
// Nearest returns the full top k, and it is the exact top k (or all but
// one of it: HNSW is approximate).
//
// A small table would be searched exactly (the planner prefers the
// resource's btree and a sort), so the test puts the search on the HNSW
// path as a large table would: sequential scans off, no btree on
// (embedder, resource), checked with EXPLAIN.
func TestNearest(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t)+"&enable_seqscan=off")
	ctx := t.Context()
	if _, err := pool.Exec(ctx, `DROP INDEX embeddings_by_resource`); err != nil {
		t.Fatal(err)
	}
	const dims, perResource, k = 16, 100, 10
	var resources []string
	for i := range 20 {
		resources = append(resources, fmt.Sprintf("r%d", i))
	}
	seedMessages(t, pool, resources, perResource)
	e, err := pgstore.EnsureEmbedder(ctx, pool, "e16", dims)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	vecs := map[string][]float32{}
	var rows [][]any
	for _, r := range resources {
		for i := range perResource {
			id := fmt.Sprintf("%s-%d", r, i)
			vecs[id] = randomUnit(rng, dims)
			rows = append(rows, []any{id, e.Name, r, dims, pgvector.NewVector(vecs[id])})
		}
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"embeddings"}, []string{"message_id", "embedder", "resource_id", "dims", "vector"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE messages, embeddings"); err != nil {
		t.Fatal(err)
	}
	q := randomUnit(rng, dims)
	// The exact top k of r3.
	var exact []string
	for i := range perResource {
		exact = append(exact, fmt.Sprintf("r3-%d", i))
	}
	cos := func(id string) float64 {
		var s float64
		for j := range q {
			s += float64(q[j]) * float64(vecs[id][j])
		}
		return s
	}
	slices.SortFunc(exact, func(a, b string) int { return -cmpFloat(cos(a), cos(b)) })
	exact = exact[:k]

	plan := explain(t, pool, fmt.Sprintf(`SELECT message_id FROM embeddings WHERE %s AND resource_id = 'r3' ORDER BY %s <=> $1::vector(%d) LIMIT %d`,
		e.Predicate(), e.Expr(), dims, k), pgvector.NewVector(q))
	if !strings.Contains(plan, "Index Scan using "+e.Index) {
		t.Fatalf("the resource's top k does not use %s:\n%s", e.Index, plan)
	}
	got, err := pgstore.Nearest(ctx, pool, e, "r3", q, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != k {
		t.Fatalf("Nearest returned %d, want %d", len(got), k)
	}
	common := 0
	for i, n := range got {
		if i > 0 && n.Cosine > got[i-1].Cosine {
			t.Fatalf("not nearest first: %v", got)
		}
		if slices.Contains(exact, n.MessageID) {
			common++
		}
	}
	if common < k-1 {
		t.Fatalf("Nearest shares %d of the exact top %d: %v vs %v", common, k, got, exact)
	}
	t.Run("ErrInvalid", func(t *testing.T) {
		if _, err := pgstore.Nearest(ctx, pool, e, "r3", q[:3], k); !errors.Is(err, pgstore.ErrInvalid) {
			t.Fatalf("wrong dims: %v, want ErrInvalid", err)
		}
	})
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
