package recall_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// TestScoresRepeatable: the same search of the same index gives the same
// scores to the last bit, search after search. Before (readme68 F9), the
// session-topic rule standardised its threads' cosines summed in map
// order, so a score's last digit changed from one search to the next
// (1.2538308710929345, then …347) and a tie could flip two hits.
func TestScoresRepeatable(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	topics := []string{"the night train to Lisbon", "a hotel in Kyoto", "tomatoes and basil", "the violin lesson",
		"a pottery workshop", "the car repair", "train tickets for Porto", "a sleeper cabin on the train"}
	var docs []recall.Doc
	for i, topic := range topics {
		th := fmt.Sprintf("t%d", i)
		for seq := int64(1); seq <= 3; seq++ {
			docs = append(docs, recall.Doc{ID: fmt.Sprintf("%s-%d", th, seq), ThreadID: th, ResourceID: "r", Seq: seq, Role: "user",
				Content: fmt.Sprintf("Turn %d about %s, and the train at night.", seq, topic), CreatedAt: at})
		}
	}
	f := newFixtureWith(t, docs, recall.Tuning{TopicWeight: 0.15, SessionWeight: 0.15})
	search := func() []float64 {
		res, err := f.ix.Search(context.Background(), recall.Query{Text: "night train", ResourceID: "r",
			Options: recall.Options{Mode: recall.ModeHybrid, TopK: 24}})
		if err != nil {
			t.Fatal(err)
		}
		recall.SortByRank(res.Hits)
		var scores []float64
		for _, h := range res.Hits {
			scores = append(scores, h.Score)
		}
		return scores
	}
	first := search()
	for run := range 200 {
		got := search()
		for i := range first {
			if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
				t.Fatalf("search %d: hit %d scores %v, the first search %v", run+2, i+1, got[i], first[i])
			}
		}
	}
}
