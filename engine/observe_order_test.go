package engine_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestResourceObservationsOrder: with resource-scoped observations,
// LoadContext orders them by their threads in ListThreads' order
// (creation time, then id bytewise: ties included, and on Postgres with
// the columns in a linguistic collation), as when it listed every thread
// of the resource; and it reads the threads the observations name only:
// 2,000 more threads without observations leave its allocations as they
// were (listing them allocated a row each).
func TestResourceObservationsOrder(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(observerModel))
		e := be.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{
			Model: newObserverModel(t, srv), Threshold: 1, Scope: engine.ObserveScopeResource}})
		conn := engine.ConnOf(e)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := conn.ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		if be.Name == "postgres" {
			exec(`ALTER TABLE threads ALTER COLUMN resource_id TYPE text COLLATE "und-x-icu", ALTER COLUMN id TYPE text COLLATE "und-x-icu"`)
		}
		created := map[string]int{"b": 5000, "A": 5000, "c": 1000, "Z": 5000, "a": 5000, "B": 9000}
		for _, th := range []string{"b", "A", "c", "Z", "a", "B"} {
			appendTurns(t, e, th, 6)
			if _, err := e.Observe(ctx, th, observe.Options{NoReflect: true}); err != nil {
				t.Fatal(err)
			}
			exec(`UPDATE threads SET created_at = ? WHERE id = ?`, created[th], th)
		}
		order := func() string {
			t.Helper()
			live, err := e.LiveObservations(ctx, "b", "r")
			if err != nil {
				t.Fatal(err)
			}
			return observationOrder(live)
		}
		want := listedOrder(t, e)
		if got := order(); got != want || threadsIn(want) != "c A Z a b B" {
			t.Fatalf("observations by thread\n%s\nwant (ListThreads' order)\n%s", got, want)
		}
		allocs := func() float64 {
			return testing.AllocsPerRun(5, func() { order() })
		}
		few := allocs()
		for i := range 2000 {
			exec(`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES (?, 'r', ?, 0)`, fmt.Sprintf("n%04d", i), 3000+i%5000)
		}
		if got := order(); got != want {
			t.Fatalf("with 2,000 more threads: observations by thread\n%s\nwant\n%s", got, want)
		}
		many := allocs()
		t.Logf("allocations of the live observations: %.0f with 6 threads, %.0f with 2,006", few, many)
		if many > few+500 {
			t.Errorf("allocations of the live observations: %.0f with 6 threads, %.0f with 2,006 (the threads were listed)", few, many)
		}
	})
}

// listedOrder is observationOrder of the live observations of resource
// "r" sorted as LoadContext sorted them before, by their thread's place
// in ListThreads.
func listedOrder(t *testing.T, e *engine.Engine) string {
	t.Helper()
	ctx := context.Background()
	live, err := e.Observations(ctx, observe.Filter{ResourceID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	ths, err := e.ListThreads(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, th := range ths {
		rank[th.ID] = i
	}
	slices.SortStableFunc(live, func(a, b observe.Observation) int { return cmp.Compare(rank[a.ThreadID], rank[b.ThreadID]) })
	return observationOrder(live)
}

// observationOrder lists observations as "thread:fromSeq-toSeq ...".
func observationOrder(obs []observe.Observation) string {
	var b strings.Builder
	for _, o := range obs {
		fmt.Fprintf(&b, "%s:%d-%d ", o.ThreadID, o.FromSeq, o.ToSeq)
	}
	return b.String()
}

// threadsIn lists the threads of an observationOrder in their order.
func threadsIn(order string) string {
	var out []string
	for _, f := range strings.Fields(order) {
		th, _, _ := strings.Cut(f, ":")
		if len(out) == 0 || out[len(out)-1] != th {
			out = append(out, th)
		}
	}
	return strings.Join(out, " ")
}
