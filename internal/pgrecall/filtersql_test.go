package pgrecall_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgrecall"
	"github.com/mnemo-go/mnemo/recall"
)

// TestFilterSQL compares the SQL form of filters with Filter.Match over a
// stored corpus: the SQL condition selects every message Match allows, and
// exactly those when it says it is exact.
func TestFilterSQL(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := newCorpus(rng, []string{"A", "B"}, 4, 20)
	pool := postgres(t, c, false)
	filters := append([]string{
		`{"metadata.score":1.5}`, `{"metadata.score":"1.5"}`, `{"metadata.score":null}`, `{"metadata.score":{"$ne":null}}`,
		`{"metadata.score":{"$gt":1}}`, `{"metadata.score":{"$lt":"V"}}`, `{"metadata.score":{"$gte":"Ü"}}`,
		`{"metadata.tags":"a"}`, `{"metadata.tags.0":"a"}`, `{"$not":{"metadata.tags.0":"a"}}`, `{"metadata.0":"zero"}`,
		`{"metadata.flag":false}`, `{"metadata.flag":{"$in":[true,null]}}`, `{"metadata.place":{"$ne":"Oslo"}}`,
		`{"metadata.place.city":{"$nin":["Oslo","Paris"]}}`, `{"$not":{"metadata.n":{"$lte":4}}}`,
		`{"threadId":{"$gt":"B"}}`, `{"threadId":{"$in":["A-t1","B-t2"]}}`, `{"seq":{"$in":[1,2,3]}}`, `{"seq":{"$nin":[1,2]}}`,
		`{"createdAt":{"$gte":"2023-01-01T00:00:00Z","$lt":"2023-06-01T00:00:00Z"}}`,
	}, parityFilters...)
	for range 300 {
		filters = append(filters, randomFilter(rng, c))
	}
	exactCount := 0
	for _, raw := range filters {
		f, err := recall.ParseFilter([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if f == nil {
			continue
		}
		cond, args, exact := pgrecall.CondSQLForTest(f)
		rows, err := pool.Query(t.Context(), "SELECT m.id FROM messages m WHERE "+cond+" ORDER BY m.id", args...)
		if err != nil {
			t.Fatalf("%s: %s: %v", raw, cond, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var want []string
		for _, m := range c.msgs {
			if f.Match(&m.doc) {
				want = append(want, m.doc.ID)
			}
		}
		slices.Sort(want)
		for _, id := range want {
			if _, found := slices.BinarySearch(got, id); !found {
				t.Fatalf("%s: SQL leaves out %s, which the filter allows (%s)", raw, id, cond)
			}
		}
		if exact {
			exactCount++
			if !slices.Equal(got, want) {
				t.Fatalf("%s: exact SQL selects %d messages, the filter %d", raw, len(got), len(want))
			}
		}
	}
	if exactCount < len(filters)*3/4 {
		t.Fatalf("only %d of %d filters exact in SQL", exactCount, len(filters))
	}
	t.Logf("%d filters, %d exact in SQL", len(filters), exactCount)
}
