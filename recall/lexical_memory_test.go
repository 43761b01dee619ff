package recall_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// TestLexicalInMemory checks that the lexical channel, scored in memory
// from the shard's postings (lexicalPostings), returns exactly what bleve's
// enumeration of the matches, every one re-scored, returns: resource and
// thread scope, with and without an exclusion and a filter.
func TestLexicalInMemory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    synth.Config
		tuning recall.Tuning
	}{
		// Resources of 600 messages: bleve re-scores every match (at
		// most RescoreDepth).
		{"small", synth.Config{Messages: 1800, Resources: 3, ThreadMessages: 60}, recall.Tuning{}},
		// Resources of 1,500 messages, bleve told to re-score up to 3,000
		// matches (every one): before the postings, this size went to
		// bleve's pool by its own BM25 past RescoreDepth matches, which
		// missed some of the exact top (TestLexicalPostingsExact).
		{"larger", synth.Config{Messages: 3000, Resources: 2, ThreadMessages: 100}, recall.Tuning{RescoreDepth: 3000}},
	} {
		t.Run(tc.name, func(t *testing.T) { lexicalInMemory(t, tc.cfg, tc.tuning) })
	}
}

func lexicalInMemory(t *testing.T, cfg synth.Config, tuning recall.Tuning) {
	ctx := context.Background()
	mem, c := synthIndex(t, cfg, tuning)
	tuning.BleveMatches = true
	blv, _ := synthIndex(t, cfg, tuning)
	type hit struct {
		id    string
		score float64
	}
	hits := func(r *recall.Result) []hit {
		recall.SortByRank(r.Hits)
		var out []hit
		for _, h := range r.Hits {
			out = append(out, hit{h.MessageID, *h.Lexical})
		}
		return out
	}
	filter := json.RawMessage(`{"role":"user"}`)
	checked := 0
	for i := range 40 {
		q := c.Query(i, 0)
		for _, scope := range []recall.Scope{recall.ScopeResource, recall.ScopeThread} {
			for variant := range 3 {
				rq := recall.Query{Text: q.Text, ResourceID: q.ResourceID, ThreadID: q.ThreadID,
					Options: recall.Options{TopK: 20, Mode: recall.ModeLexical, Scope: scope}}
				switch variant {
				case 1:
					rq.Exclude = map[string]bool{q.Target: true}
				case 2:
					rq.Options.Filter = filter
				}
				a, err := mem.Search(ctx, rq)
				if err != nil {
					t.Fatal(err)
				}
				b, err := blv.Search(ctx, rq)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := hits(a), hits(b); !slices.Equal(got, want) {
					t.Fatalf("query %q scope %s variant %d:\n in memory %v\n bleve     %v", q.Text, scope, variant, got, want)
				}
				if len(a.Hits) > 0 {
					checked++
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d searches with hits compared", checked)
	}
}
