package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// TestLexicalScopeScores checks that the lexical search (a conjunction of
// the scope terms, boosted to 0, with the match) returns the hits, total
// and scores of the reference form: a boolean query whose must is the match
// and whose filter is the scope.
func TestLexicalScopeScores(t *testing.T) {
	l, err := OpenLexical(t.TempDir() + "/lexical")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	words := strings.Fields("apple banana cherry delta echo fox golf hotel india juliet kilo lima mango")
	rng := rand.New(rand.NewPCG(3, 4))
	var docs []Doc
	for i := range 3000 {
		ws := make([]string, 3+rng.IntN(12))
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i%7), ResourceID: fmt.Sprintf("r%d", i%5), Content: strings.Join(ws, " ")})
	}
	for start := 0; start < len(docs); start += 700 { // several segments
		if err := l.Index(docs[start:min(start+700, len(docs))]); err != nil {
			t.Fatal(err)
		}
	}
	reference := func(q lexQuery) *bleve.SearchResult {
		mq := bleve.NewMatchQuery(q.Text)
		mq.SetField(fieldText)
		filters := []query.Query{term(fieldResource, q.Resource)}
		if q.Thread != "" {
			filters = append(filters, term(fieldThread, q.Thread))
		}
		if q.IDs != nil {
			filters = append(filters, bleve.NewDocIDQuery(q.IDs))
		}
		bq := bleve.NewBooleanQuery()
		bq.AddMust(mq)
		bq.AddFilter(bleve.NewConjunctionQuery(filters...))
		res, err := l.idx.Search(bleve.NewSearchRequestOptions(bq, q.Size, 0, false))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i := range 60 {
		q := lexQuery{Text: words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))], Resource: fmt.Sprintf("r%d", i%5), Size: 50}
		if i%3 == 1 {
			q.Thread = fmt.Sprintf("t%d", i%7)
		}
		if i%3 == 2 {
			for j := range 40 {
				q.IDs = append(q.IDs, fmt.Sprintf("m%05d", (i*97+j*5)%3000))
			}
		}
		got, total, err := l.search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		want := reference(q)
		if total != int(want.Total) || len(got) != len(want.Hits) {
			t.Fatalf("query %+v: %d hits of %d, want %d of %d", q, len(got), total, len(want.Hits), want.Total)
		}
		wantScore := map[string]float64{}
		for _, h := range want.Hits {
			wantScore[h.ID] = h.Score
		}
		for j, h := range got {
			// Equal scores may come in another order at the Size boundary;
			// scores must match rank by rank, ids wherever they are both
			// returned.
			if d := h.Score - want.Hits[j].Score; d > 1e-9 || d < -1e-9 {
				t.Fatalf("query %+v rank %d: score %v, want %v", q, j, h.Score, want.Hits[j].Score)
			}
			if ws, ok := wantScore[h.ID]; ok && ws != h.Score {
				t.Fatalf("query %+v: %s scored %v, want %v", q, h.ID, h.Score, ws)
			}
		}
	}
}
