package recall

import (
	"cmp"
	"slices"
)

// Fusion names (Options.Fusion).
const (
	// FusionWeighted is a convex combination of per-query normalised
	// channel scores: (1−w)·BM25/max(BM25) + w·(cos−min)/(max−min), the
	// maxima and minima taken over the query's candidates (Bruch, Gai and
	// Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM
	// TOIS 2023, found this convex combination better than RRF and robust).
	// It is the default: see DefaultVectorWeight.
	FusionWeighted = "weighted"
	// FusionRRF is reciprocal rank fusion, Σ 1/(RRFK + rank) over the
	// channels that ranked the message (Cormack, Clarke and Büttcher,
	// SIGIR 2009).
	FusionRRF = "rrf"
	// DefaultFusion is used when Options.Fusion is "".
	DefaultFusion = FusionWeighted
)

// RRFK is the reciprocal rank fusion constant k = 60 (Cormack et al. 2009).
const RRFK = 60

// Candidate is one message scored by the channels, the input of a fusion.
// Lexical and Vector are nil when the channel has no score for it; LexRank
// and VecRank are 1-based ranks in each channel's own candidate list (0 when
// absent from that list).
type Candidate struct {
	ID      string
	Lexical *float64
	Vector  *float64
	LexRank int
	VecRank int
}

// FuseRRF returns the RRF score of each candidate, in input order.
func FuseRRF(cands []Candidate, k float64) []float64 {
	out := make([]float64, len(cands))
	for i, c := range cands {
		if c.LexRank > 0 {
			out[i] += 1 / (k + float64(c.LexRank))
		}
		if c.VecRank > 0 {
			out[i] += 1 / (k + float64(c.VecRank))
		}
	}
	return out
}

// FuseWeighted returns (1−w)·lexNorm + w·vecNorm for each candidate, in input
// order, where lexNorm = BM25/max BM25 and vecNorm = (cos−min)/(max−min) over
// the candidates that have the score (a missing score counts 0; a channel
// whose scores are all equal contributes its presence, 1). w is clamped to
// [0, 1].
func FuseWeighted(cands []Candidate, w float64) []float64 {
	w = min(max(w, 0), 1)
	var lmax float64
	vmin, vmax := 2.0, -2.0
	for _, c := range cands {
		if c.Lexical != nil {
			lmax = max(lmax, *c.Lexical)
		}
		if c.Vector != nil {
			vmin, vmax = min(vmin, *c.Vector), max(vmax, *c.Vector)
		}
	}
	out := make([]float64, len(cands))
	for i, c := range cands {
		var l, v float64
		if c.Lexical != nil && lmax > 0 {
			l = *c.Lexical / lmax
		}
		if c.Vector != nil {
			if vmax > vmin {
				v = (*c.Vector - vmin) / (vmax - vmin)
			} else {
				v = 1
			}
		}
		out[i] = (1-w)*l + w*v
	}
	return out
}

// rankFused returns the candidate indexes ordered by fused score, ties
// broken by lexical score, then vector score, then id (deterministic).
func rankFused(cands []Candidate, fused []float64) []int {
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	val := func(p *float64) float64 {
		if p == nil {
			return -3
		}
		return *p
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(fused[b], fused[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(val(cands[b].Lexical), val(cands[a].Lexical)); c != 0 {
			return c
		}
		if c := cmp.Compare(val(cands[b].Vector), val(cands[a].Vector)); c != 0 {
			return c
		}
		return cmp.Compare(cands[a].ID, cands[b].ID)
	})
	return idx
}
