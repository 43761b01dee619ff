package recall_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// searchAllocsMax is what a warm hybrid search of one large resource may
// allocate, in heap objects: the query's analysis and vector, the fused
// scores, the hits and their range. Before the search reused its lists and
// maps (searchScratch) it allocated 350–400 (two per candidate for their
// scores, maps keyed by message id in four stages, the channel lists).
const searchAllocsMax = 130

// TestSearchAllocs guards the garbage of the search path (issue 14: the
// collections it caused slowed the LoadContext calls they overlapped): a
// warm hybrid search over one resource of 9,000 messages (the lexical
// channel in its own goroutine, the score memo a map), with a recent
// window excluded and a range of one turn, as LoadContext asks, allocates
// at most searchAllocsMax objects on average. The resource is loaded from
// its Source: the lexical channel reads the shard's postings, bleve is
// left empty.
func TestSearchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c, err := synth.New(synth.Config{Messages: 9000, Resources: 1})
	if err != nil {
		t.Fatal(err)
	}
	src := memSource{}
	for th := range c.All() {
		for i, m := range th.Messages {
			src[th.ResourceID] = append(src[th.ResourceID], recall.Doc{ID: m.ID, ThreadID: th.ID, ResourceID: th.ResourceID,
				Seq: int64(i + 1), Role: m.Role, Name: m.Name, Content: m.Content, CreatedAt: m.CreatedAt})
		}
	}
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lex.Close() })
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ctx := context.Background()
	var queries []recall.Query
	for i := range 40 {
		q := c.Query(i, 1)
		exclude := map[string]bool{}
		for j := range 10 {
			exclude[fmt.Sprintf("%s.%06d", q.ThreadID, j+1)] = true
		}
		queries = append(queries, recall.Query{Text: q.Text, ResourceID: q.ResourceID, Exclude: exclude,
			Options: recall.Options{TopK: 5, Mode: recall.ModeHybrid, MessageRange: recall.Range{Before: 1, After: 1}}})
	}
	search := func(q recall.Query) *recall.Result {
		res, err := ix.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, q := range queries { // load the resource, warm the scratch
		res := search(q)
		if len(res.Hits) == 0 || res.Retrieval.Lexical != recall.StatusOK || res.Retrieval.Vector != recall.StatusOK {
			t.Fatalf("query %q: %d hits, retrieval %+v", q.Text, len(res.Hits), res.Retrieval)
		}
	}
	i := 0
	got := testing.AllocsPerRun(len(queries), func() {
		search(queries[i%len(queries)])
		i++
	})
	if got > searchAllocsMax {
		t.Fatalf("a search allocated %.0f objects, want at most %d", got, searchAllocsMax)
	}
	t.Logf("%.0f objects a search", got)
}
