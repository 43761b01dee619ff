package recall_test

import (
	"math"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// missingIndex indexes docs (each in its own thread, so that no turn lifts
// another by the context rule) with the hash vectors of those not in
// missing, and fuses with vector weight w.
func missingIndex(t *testing.T, texts []string, missing map[string]bool, w float64) *recall.Index {
	t.Helper()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var docs []recall.Doc
	for i, text := range texts {
		id := string(rune('a' + i))
		docs = append(docs, recall.Doc{ID: id, ThreadID: "t" + id, ResourceID: "r", Seq: 1, Role: "user", Content: text, CreatedAt: at})
	}
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	if err := lex.Index(docs); err != nil {
		t.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: vecSource{docs, missing}, Tuning: recall.Tuning{VectorWeight: w}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// ranks returns the hits' ranks by message id.
func ranks(hits []recall.Hit) map[string]int {
	out := map[string]int{}
	for _, h := range hits {
		out[h.MessageID] = h.Rank
	}
	return out
}

// TestSearchLoneVectorHit: while the other candidates are not embedded
// yet, the one turn with a vector (the vector channel's lone hit) gets the
// vector channel's credit and ranks above the turn of the next higher
// BM25. Its cosine counted nothing before (every missing cosine counted
// it, z-scores all 0): c ranked by BM25 alone, third.
func TestSearchLoneVectorHit(t *testing.T) {
	ix := missingIndex(t, []string{
		"Tomatoes need sun.",
		"Tomatoes need sun and water.",
		"Tomatoes need sun and water daily.",
		"Tomatoes need sun and water daily, my friend.",
	}, map[string]bool{"a": true, "b": true, "d": true}, 0.5)
	res, err := ix.Search(t.Context(), recall.Query{Text: "tomatoes", ResourceID: "r", Options: recall.Options{TopK: 10}})
	if err != nil {
		t.Fatal(err)
	}
	r := ranks(res.Hits)
	t.Logf("ranks %v", r)
	if got, want := len(r), 4; got != want {
		t.Fatalf("hits=%d, want %d: %+v", got, want, res.Hits)
	}
	if r["c"] > r["b"] || r["c"] > r["d"] {
		t.Errorf("the lone vector hit c ranks %d, below b (%d) or d (%d): %+v", r["c"], r["b"], r["d"], res.Hits)
	}
}

// TestSearchThresholdFusesCosine: with a threshold that only the best
// turn's cosine reaches, the fusion weighs each lexical candidate's own
// cosine under it (the one a vector search without threshold gives it),
// though no hit shows a vector score under the threshold. It counted the
// lowest cosine at or above the threshold (here the lone vector hit's),
// which gave that hit no credit.
func TestSearchThresholdFusesCosine(t *testing.T) {
	const w = 0.5
	ix := missingIndex(t, []string{
		"The tomatoes in the garden need sun.",
		"Tomatoes and basil grow together.",
		"We planted tomatoes last spring, near the fence.",
		"The garden tomatoes garden tomatoes ripened early.",
		"Dinner was pasta with a tomato sauce.",
	}, nil, w)
	const query = "garden tomatoes"
	vec, err := ix.Search(t.Context(), recall.Query{Text: query, ResourceID: "r", Options: recall.Options{TopK: 10, Mode: recall.ModeVector}})
	if err != nil {
		t.Fatal(err)
	}
	cos := map[string]float64{}
	best := math.Inf(-1)
	for _, h := range vec.Hits {
		cos[h.MessageID] = *h.Vector
		best = max(best, *h.Vector)
	}
	res, err := ix.Search(t.Context(), recall.Query{Text: query, ResourceID: "r", Options: recall.Options{TopK: 10, Threshold: best}})
	if err != nil {
		t.Fatal(err)
	}
	// Every candidate is a hit (topK 10): the fused scores are those of
	// the candidates with their exact cosines (no hybrid rule applies to
	// these one-turn threads of a user without a name, with hash-384).
	var cands []recall.Candidate
	under := 0
	for _, h := range res.Hits {
		if h.Vector != nil && *h.Vector < best {
			t.Errorf("%s: vector score %.4f shown under the threshold %.4f", h.MessageID, *h.Vector, best)
		}
		c, ok := cos[h.MessageID]
		if !ok {
			t.Fatalf("%s: no cosine in vector mode", h.MessageID)
		}
		if c < best {
			under++
		}
		cands = append(cands, recall.Candidate{ID: h.MessageID, Lexical: h.Lexical, Vector: &c})
	}
	if under == 0 || under == len(res.Hits) {
		t.Fatalf("%d of %d hits under the threshold %.4f, want some: %+v", under, len(res.Hits), best, res.Hits)
	}
	want := recall.FuseWeighted(cands, w)
	for i, h := range res.Hits {
		if math.Abs(h.Score-want[i]) > 1e-9 {
			t.Errorf("%s: score %.4f, want %.4f (its cosine %.4f, threshold %.4f)", h.MessageID, h.Score, want[i], cos[h.MessageID], best)
		}
	}
}
