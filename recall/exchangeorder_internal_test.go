package recall

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// docsCorpus is a Corpus of documents by id; only Doc is read by the
// exchange order rule.
type docsCorpus map[string]*Doc

func (c docsCorpus) Doc(id string) *Doc                                            { return c[id] }
func (docsCorpus) LexicalScore(string) float64                                     { return 0 }
func (docsCorpus) Similarity(string) (float64, bool)                               { return 0, false }
func (docsCorpus) TopicCosine(string) (float64, bool)                              { return 0, false }
func (docsCorpus) Referent(string) Referent                                        { return Referent{} }
func (docsCorpus) Neighbours(context.Context, string, int64, int64) ([]Hit, error) { return nil, nil }

// TestExchangeOrderInvariants: over random candidates (three threads,
// roles user, assistant with and without a name, tool; gaps in the seqs;
// unranked -Inf scores), the rule only permutes scores inside exchanges —
// a user's turn and the unnamed assistant's turn of the next seq of its
// thread, both finite — so that the user's turn holds the better of the
// two (the reply with a question asking what the agent said; nothing
// moves with one naming the conversation), every other score stays, and
// each thread keeps its scores.
func TestExchangeOrderInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 5))
	queries := map[string]int{ // query → which turn of an exchange ranks first: 0 the user's, 1 the reply, -1 none moves
		"any tips for getting around Tokyo?":         0,
		"what was the list you provided?":            1,
		"in our previous chat, what was the list?":   -1,
		"our chat — what was the list you provided?": 1,
	}
	for round := range 200 {
		c := docsCorpus{}
		var cands []candidate
		var fused []float64
		for th := range 3 {
			for seq := int64(1); seq <= 12; seq++ {
				if rng.IntN(4) == 0 {
					continue // not a candidate
				}
				d := &Doc{ID: fmt.Sprintf("t%d.%d", th, seq), ThreadID: fmt.Sprintf("t%d", th), Seq: seq}
				switch rng.IntN(6) {
				case 0, 1, 2:
					d.Role = []string{"user", "assistant"}[seq%2]
				case 3:
					d.Role, d.Name = "assistant", "Maria"
				case 4:
					d.Role = "tool"
				case 5:
					d.Role, d.Name = "user", "John"
				}
				c[d.ID] = d
				cands = append(cands, candidate{ID: d.ID})
				f := rng.NormFloat64()
				if rng.IntN(10) == 0 {
					f = math.Inf(-1)
				}
				fused = append(fused, f)
			}
		}
		rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i]; fused[i], fused[j] = fused[j], fused[i] })
		for q, first := range queries {
			got := slices.Clone(fused)
			exchangeOrder(c, cands, got, q, false)
			byID := map[string]int{}
			for i, cd := range cands {
				byID[cd.ID] = i
			}
			paired := make([]bool, len(cands))
			for i, cd := range cands {
				u := c[cd.ID]
				j, ok := byID[fmt.Sprintf("%s.%d", u.ThreadID, u.Seq+1)]
				if u.Role != "user" || !ok || math.IsInf(fused[i], 0) || math.IsInf(fused[j], 0) {
					continue
				}
				if r := c[cands[j].ID]; r.Role != "assistant" || r.Name != "" {
					continue
				}
				paired[i], paired[j] = true, true
				hi, lo := max(fused[i], fused[j]), min(fused[i], fused[j])
				want := [2]float64{hi, lo} // user's, reply's
				switch first {
				case 1:
					want = [2]float64{lo, hi}
				case -1:
					want = [2]float64{fused[i], fused[j]}
				}
				if got[i] != want[0] || got[j] != want[1] {
					t.Fatalf("round %d %q: exchange %s, %s scored %v, %v, got %v, %v, want %v", round, q, cd.ID, cands[j].ID, fused[i], fused[j], got[i], got[j], want)
				}
			}
			for i := range cands {
				if !paired[i] && got[i] != fused[i] && !(math.IsNaN(got[i]) && math.IsNaN(fused[i])) {
					t.Fatalf("round %d %q: %s (no exchange) moved %v → %v", round, q, cands[i].ID, fused[i], got[i])
				}
			}
		}
	}
}
