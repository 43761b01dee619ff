package recall_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// synthetic builds the candidates of one query the way Index.Search does:
// the union of each channel's top pool, each candidate carrying both
// scores. A channel's raw score for a document is signal·relevant + noise
// (standard normal). Lexical scores are BM25-like: zero for the documents
// that share no term with the query (raw < 1.5), positive otherwise;
// vector scores are cosines in a narrow band, as real embedders give.
func synthetic(r *rand.Rand, lexSignal, vecSignal float64) ([]recall.Candidate, map[string]bool) {
	const n, pool = 2000, 100
	type doc struct {
		id       string
		lex, vec float64
	}
	rel := map[string]bool{}
	nrel := 1 + r.IntN(3)
	docs := make([]doc, n)
	for i := range docs {
		raw := func(signal float64) float64 {
			v := r.NormFloat64()
			if i < nrel {
				v += signal
			}
			return v
		}
		d := doc{id: fmt.Sprintf("d%04d", i), vec: 0.3 + 0.05*raw(vecSignal)}
		if l := raw(lexSignal); l >= 1.5 {
			d.lex = 4 * l
		}
		if i < nrel {
			rel[d.id] = true
		}
		docs[i] = d
	}
	byLex := slices.Clone(docs)
	slices.SortFunc(byLex, func(a, b doc) int { return cmp.Compare(b.lex, a.lex) })
	byVec := slices.Clone(docs)
	slices.SortFunc(byVec, func(a, b doc) int { return cmp.Compare(b.vec, a.vec) })
	index := map[string]int{}
	var cands []recall.Candidate
	get := func(d doc) *recall.Candidate {
		if i, ok := index[d.id]; ok {
			return &cands[i]
		}
		index[d.id] = len(cands)
		lex, vec := d.lex, d.vec
		c := recall.Candidate{ID: d.id, Vector: &vec}
		if lex > 0 {
			c.Lexical = &lex
		}
		cands = append(cands, c)
		return &cands[len(cands)-1]
	}
	for i, d := range byLex[:pool] {
		if d.lex == 0 {
			break
		}
		get(d).LexRank = i + 1
	}
	for i, d := range byVec[:pool] {
		get(d).VecRank = i + 1
	}
	return cands, rel
}

func recallAt(cands []recall.Candidate, scores []float64, rel map[string]bool, k int) float64 {
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	for _, i := range idx[:min(k, len(idx))] {
		if rel[cands[i].ID] {
			return 1
		}
	}
	return 0
}

func channel(cands []recall.Candidate, lexical bool) []float64 {
	out := make([]float64, len(cands))
	for i, c := range cands {
		p := c.Vector
		if lexical {
			p = c.Lexical
		}
		out[i] = math.Inf(-1)
		if p != nil {
			out[i] = *p
		}
	}
	return out
}

type fusionRun struct{ lex, vec, weighted, rrf float64 }

func runSynthetic(lexSignal, vecSignal, w float64) fusionRun {
	r := rand.New(rand.NewPCG(11, 13))
	var f fusionRun
	const queries = 150
	for q := 0; q < queries; q++ {
		cands, rel := synthetic(r, lexSignal, vecSignal)
		f.lex += recallAt(cands, channel(cands, true), rel, 10) / queries
		f.vec += recallAt(cands, channel(cands, false), rel, 10) / queries
		f.weighted += recallAt(cands, recall.FuseWeighted(cands, w), rel, 10) / queries
		f.rrf += recallAt(cands, recall.FuseRRF(cands, recall.RRFK), rel, 10) / queries
	}
	return f
}

// TestFusionSynthetic checks the default weighted fusion on synthetic
// rankings where either channel, or both, is the strong one. With the
// weight used for semantic embedders it stays within 4 points of
// recall@10 of its better channel whenever the weaker channel carries some
// signal; with the hash-384 weight it never loses to a strong lexical
// channel. When BM25 carries no signal at all, only RRF (Options.Fusion
// "rrf") keeps up with a strong vector channel: the test pins that too.
func TestFusionSynthetic(t *testing.T) {
	semantic := recall.DefaultVectorWeight("openai:text-embedding-3-small")
	hash := recall.DefaultVectorWeight(recall.HashID)
	for _, tc := range []struct {
		name     string
		lex, vec float64
		w        float64
		slack    float64 // allowed loss against the better channel
	}{
		{"StrongLexical/semantic", 4, 0.5, semantic, 0.04},
		{"StrongLexicalMediumVector/semantic", 4, 2, semantic, 0.04},
		{"StrongVectorMediumLexical/semantic", 2, 4, semantic, 0.04},
		{"BothStrong/semantic", 3, 3, semantic, 0.0},
		{"BothMedium/semantic", 2, 2, semantic, 0.0},
		{"StrongLexical/hash", 4, 0.5, hash, 0.01},
		{"StrongLexicalMediumVector/hash", 4, 2, hash, 0.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := runSynthetic(tc.lex, tc.vec, tc.w)
			t.Logf("recall@10: lexical %.3f vector %.3f weighted(w=%.1f) %.3f rrf %.3f", f.lex, f.vec, tc.w, f.weighted, f.rrf)
			if best := max(f.lex, f.vec); f.weighted < best-tc.slack {
				t.Fatalf("weighted %.3f below its better channel %.3f by more than %.2f", f.weighted, best, tc.slack)
			}
		})
	}
	t.Run("StrongVectorUselessLexical", func(t *testing.T) {
		f := runSynthetic(0.5, 4, semantic)
		t.Logf("recall@10: lexical %.3f vector %.3f weighted(w=%.1f) %.3f rrf %.3f", f.lex, f.vec, semantic, f.weighted, f.rrf)
		if f.rrf < f.vec-0.05 || f.weighted <= f.lex {
			t.Fatalf("rrf %.3f (vector %.3f), weighted %.3f (lexical %.3f)", f.rrf, f.vec, f.weighted, f.lex)
		}
	})
}

func TestFuseFunctions(t *testing.T) {
	p := func(f float64) *float64 { return &f }
	cands := []recall.Candidate{
		{ID: "a", Lexical: p(10), Vector: p(0.2), LexRank: 1, VecRank: 3},
		{ID: "b", Lexical: p(5), Vector: p(0.9), LexRank: 2, VecRank: 1},
		{ID: "c", Vector: p(0.5), VecRank: 2},
	}
	rrf := recall.FuseRRF(cands, 60)
	if want := 1.0/61 + 1.0/63; math.Abs(rrf[0]-want) > 1e-12 || rrf[2] != 1.0/62 {
		t.Fatalf("rrf %v", rrf)
	}
	w := recall.FuseWeighted(cands, 0)
	if !(w[0] > w[1] && w[1] > w[2]) {
		t.Fatalf("w=0 must rank by BM25: %v", w)
	}
	w = recall.FuseWeighted(cands, 1)
	if !(w[1] > w[2] && w[2] > w[0]) {
		t.Fatalf("w=1 must rank by cosine: %v", w)
	}
	m := recall.FuseWeightedMax(cands, 0.5)
	if want := 0.5*1 + 0.5*0; math.Abs(m[0]-want) > 1e-12 {
		t.Fatalf("max-norm %v", m)
	}
}

// TestFuseWeightedLoneCandidate: a query with one candidate gets a score
// that says which channels found it (it was 0, z-scores of one value,
// whatever the channels said).
func TestFuseWeightedLoneCandidate(t *testing.T) {
	p := func(f float64) *float64 { return &f }
	for _, c := range []struct {
		name string
		cand recall.Candidate
		want float64
	}{
		{"both channels", recall.Candidate{ID: "a", Lexical: p(2.3), Vector: p(0.6), LexRank: 1, VecRank: 1}, 1},
		{"lexical only", recall.Candidate{ID: "a", Lexical: p(2.3), LexRank: 1}, 0.7},
		{"vector only", recall.Candidate{ID: "a", Vector: p(0.6), VecRank: 1}, 0.3},
		{"bm25 zero", recall.Candidate{ID: "a", Lexical: p(0), Vector: p(0.1), VecRank: 1}, 0.3},
	} {
		got := recall.FuseWeighted([]recall.Candidate{c.cand}, 0.3)
		if len(got) != 1 || math.Abs(got[0]-c.want) > 1e-12 {
			t.Errorf("%s: fused %v, want [%g]", c.name, got, c.want)
		}
	}
	if got := recall.FuseWeighted(nil, 0.3); len(got) != 0 {
		t.Errorf("no candidates: %v", got)
	}
}

// TestFuseWeightedLoneCosine: when the candidates that have a cosine all
// have the same one (one candidate has a cosine, the others none: their
// messages are not embedded yet), those candidates stand above the ones
// without, as if every missing cosine were one value below theirs. The
// missing cosines counted the channel's minimum, that same value: the
// vector channel's z-scores were all 0 and its lone hit got no credit (it
// ranked as if the channel had said nothing, below a candidate of the
// same BM25 and no cosine).
func TestFuseWeightedLoneCosine(t *testing.T) {
	p := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		name  string
		cands []recall.Candidate
	}{
		{"one cosine", []recall.Candidate{
			{ID: "a", Lexical: p(3), LexRank: 1},
			{ID: "b", Lexical: p(2), LexRank: 2},
			{ID: "c", Lexical: p(2), Vector: p(0.4), LexRank: 3, VecRank: 1},
			{ID: "d", Lexical: p(1), LexRank: 4},
		}},
		{"one cosine, no BM25", []recall.Candidate{
			{ID: "a", Lexical: p(3), LexRank: 1},
			{ID: "b", Lexical: p(2), LexRank: 2},
			{ID: "c", Vector: p(-0.1), VecRank: 1},
		}},
		{"two equal cosines", []recall.Candidate{
			{ID: "a", Lexical: p(3), LexRank: 1},
			{ID: "b", Lexical: p(2), Vector: p(0.4), LexRank: 2, VecRank: 1},
			{ID: "c", Lexical: p(2), LexRank: 3},
			{ID: "d", Vector: p(0.4), VecRank: 2},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The same candidates with every missing cosine one value
			// below the scored ones: a channel with a spread.
			below := slices.Clone(tc.cands)
			for i := range below {
				if below[i].Vector == nil {
					below[i].Vector = p(-0.5)
				}
			}
			for _, w := range []float64{0.15, 0.5} {
				got, want := recall.FuseWeighted(tc.cands, w), recall.FuseWeighted(below, w)
				for i, c := range tc.cands {
					if math.Abs(got[i]-want[i]) > 1e-12 {
						t.Errorf("w=%g: %s fused %.4f, want %.4f (all: %.4f, want %.4f)", w, c.ID, got[i], want[i], got, want)
					}
				}
			}
			// A cosine never counts less than none: of two candidates
			// with the same BM25, the one with a cosine scores higher.
			got := recall.FuseWeighted(tc.cands, 0.5)
			for i, a := range tc.cands {
				for j, b := range tc.cands {
					if a.Vector != nil && b.Vector == nil && lexOf(a) == lexOf(b) && got[i] <= got[j] {
						t.Errorf("%s (cosine %g) fused %.4f, not above %s (no cosine) %.4f", a.ID, *a.Vector, got[i], b.ID, got[j])
					}
				}
			}
		})
	}
}

// lexOf is c's BM25, 0 when it has none.
func lexOf(c recall.Candidate) float64 {
	if c.Lexical == nil {
		return 0
	}
	return *c.Lexical
}
