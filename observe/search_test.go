package observe_test

import (
	"errors"
	"math"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/observe"
)

func TestSearch(t *testing.T) { forEachBackend(t, testSearch) }

func testSearch(t *testing.T, b backend) {
	e := b.openEnv(t, b.Place(t), &memSource{}, newFakeModel(t, scripted).model(t), observe.Config{})
	for _, r := range []struct {
		id, thread, resource, content string
		retired                       bool
	}{
		{"A", "t1", "r", "- porto trip", false},
		{"B", "t1", "r", "- lisbon cat mia", false},
		{"C", "t2", "r", "- porto porto porto", true}, // retired: never found
		{"D", "t3", "other", "- porto trip", false},   // other resource
	} {
		var retired any
		if r.retired {
			retired = 1
		}
		if _, err := store.Bound(e.db).ExecContext(ctx, `INSERT INTO observations (id, thread_id, resource_id, from_seq, to_seq, level, content, created_at, retired_at)
			VALUES (?, ?, ?, 1, 2, 'observation', ?, 0, ?)`, r.id, r.thread, r.resource, r.content, retired); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := observe.Search(ctx, e.db, observe.SearchQuery{Text: "Porto?", Filter: observe.Filter{ResourceID: "r"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != "A" {
		t.Fatalf("hits %+v, want only A", hits)
	}
	// By hand: N=2, avgdl=2.5, df=1, idf=ln 2, tf=1, dl=2:
	// ln2 · 2.2 / (1 + 1.2·(0.25 + 0.75·2/2.5)) = 0.754891…
	if got, want := hits[0].Score, math.Ln2*2.2/2.02; math.Abs(got-want) > 1e-9 {
		t.Fatalf("score %v, want %v", got, want)
	}
	hits, _ = observe.Search(ctx, e.db, observe.SearchQuery{Text: "cat or trip", Filter: observe.Filter{ThreadID: "t1"}, TopK: 1})
	if len(hits) != 1 {
		t.Fatalf("topK 1: %d hits", len(hits))
	}
	if hits, _ := observe.Search(ctx, e.db, observe.SearchQuery{Text: "berlin", Filter: observe.Filter{ResourceID: "r"}}); len(hits) != 0 {
		t.Fatalf("no-match query: %+v", hits)
	}
}

// TestListFilterError: List and Search refuse a filter naming neither a
// thread nor a resource with a *FilterError on "Filter", matching
// ErrInvalidFilter and not ErrConfig (a configuration error, for bad
// input, before), and read nothing.
func TestListFilterError(t *testing.T) { forEachBackend(t, testListFilterError) }

func testListFilterError(t *testing.T, b backend) {
	e := b.openEnv(t, b.Place(t), &memSource{}, newFakeModel(t, scripted).model(t), observe.Config{})
	check := func(what string, err error) {
		t.Helper()
		var fe *observe.FilterError
		if !errors.As(err, &fe) || fe.Field != "Filter" || !errors.Is(err, observe.ErrInvalidFilter) || errors.Is(err, observe.ErrConfig) {
			t.Errorf("%s: err %v, want a *FilterError on Filter matching ErrInvalidFilter, not ErrConfig", what, err)
		}
	}
	obs, err := observe.List(ctx, e.db, observe.Filter{All: true, IDs: []string{"A"}})
	if obs != nil {
		t.Errorf("List: %+v, want none", obs)
	}
	check("List", err)
	_, err = observe.Search(ctx, e.db, observe.SearchQuery{Text: "porto"})
	check("Search", err)
}
