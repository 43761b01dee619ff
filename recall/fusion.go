package recall

import (
	"cmp"
	"math"
	"slices"
)

// Fusion names (Options.Fusion).
const (
	// FusionWeighted is a convex combination of per-query standardised
	// channel scores, (1−w)·z(BM25) + w·z(cos), over the query's candidates
	// (a convex combination of normalised scores beat RRF in
	// Bruch, Gai and Ingber, "An Analysis of Fusion Functions for Hybrid
	// Retrieval", ACM TOIS 2023). It is the default: on both dev sets it is
	// at least as good as either channel alone, with hash-384 and with
	// use-lite, where RRF loses 3–13 points of recall_any@10 to BM25 alone
	// (docs/recall.md). w comes from DefaultVectorWeight.
	FusionWeighted = "weighted"
	// FusionRRF is reciprocal rank fusion, Σ 1/(k + rank) with k = 60 over
	// the channels that ranked the message (Cormack, Clarke and Büttcher,
	// SIGIR 2009).
	FusionRRF = "rrf"
	// DefaultFusion is used when Options.Fusion is "".
	DefaultFusion = FusionWeighted
)

// rrfK is the reciprocal rank fusion constant k = 60 (Cormack et al. 2009).
const rrfK = 60

// Normalisations of the weighted fusion (FusionParams.Normalise).
const (
	// NormStandardise is the default: each channel's scores
	// standardised over the candidates, so 0 is their mean and below it
	// negative (a lone candidate scores its channels' presence, up to 1).
	NormStandardise = "standardise"
	// NormMax is Tuning.MaxNorm's: BM25 divided by the
	// candidates' highest, cosine min–max scaled, so scores are within
	// [0, 1].
	NormMax = "max"
)

// FusionParams describe the fusion a hybrid search runs and its
// parameters: what a reader needs to say what a fused score is, and what
// a re-run needs to compute it again.
type FusionParams struct {
	// Name is FusionWeighted or FusionRRF.
	Name string
	// VectorWeight is w of the weighted fusion, (1−w)·lexical + w·vector,
	// within [0, 1] (Tuning.VectorWeight resolved and clamped as the
	// fusion clamps it); 0 with rrf.
	VectorWeight float64
	// Normalise is the weighted fusion's NormStandardise or NormMax; ""
	// with rrf.
	Normalise string
	// K is the rrf constant k of Σ 1/(k + rank) (60); 0 with weighted.
	K int
}

// Fusion returns the parameters of the fusion named fusion ("" means
// DefaultFusion) under t, a tuning resolved for the search's embedder
// (Tuning.Resolve): the weight and normalisation fuse applies.
func (t Tuning) Fusion(fusion string) FusionParams {
	if fusion == FusionRRF {
		return FusionParams{Name: FusionRRF, K: rrfK}
	}
	p := FusionParams{Name: FusionWeighted, VectorWeight: min(max(t.VectorWeight, 0), 1), Normalise: NormStandardise}
	if t.MaxNorm {
		p.Normalise = NormMax
	}
	return p
}

// candidate is one message scored by the channels, the input of a fusion.
// Lexical and Vector are nil when the channel has no score for it; LexRank
// and VecRank are 1-based ranks in each channel's own candidate list (0 when
// absent from that list). VectorUnder is the cosine of a lexical candidate
// under Options.Threshold, which Vector leaves nil (a hit never shows a
// vector score under the threshold): the weighted fusion counts it
// (vectorColumn), nothing else does.
type candidate struct {
	ID          string
	Lexical     *float64
	Vector      *float64
	VectorUnder *float64
	LexRank     int
	VecRank     int
}

// fuseRRF returns the RRF score of each candidate, in input order.
func fuseRRF(cands []candidate, k float64) []float64 {
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

// fuseWeightedMax returns (1−w)·lexNorm + w·vecNorm for each candidate, in input
// order, where lexNorm = BM25/max BM25 and vecNorm = (cos−min)/(max−min) over
// the candidates that have the score (a missing score counts 0; a channel
// whose scores are all equal contributes its presence, 1). w is clamped to
// [0, 1].
func fuseWeightedMax(cands []candidate, w float64) []float64 {
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
func rankFused(cands []candidate, fused []float64) []int {
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

// fuseWeighted returns (1−w)·zLex + w·zVec for each candidate, in input order,
// where each channel's scores are standardised over the candidates,
// z = (s − mean)/stddev. Standardising keeps what max-normalisation erases:
// how far a channel's best candidates stand out from the rest, so a channel
// that has nothing to say for a query (flat scores) cannot outvote one
// that does.
//
// A missing score is rare: a hybrid search scores every candidate on both
// channels (candidates: the exact BM25 of a vector candidate, the cosine
// of a lexical one, under Options.Threshold too, as VectorUnder), so a
// lexical score is missing only where the message's BM25 is 0 (or, with
// Tuning.BleveScores, not computed), and it counts 0; a cosine only where
// neither the message nor its neighbours have a vector yet (vectorStatus's
// "degraded"), and it counts the candidates' lowest cosine, or, when every
// cosine they have is that one (a lone vector hit among turns not
// embedded yet), just below it (vectorColumn).
//
// A lone candidate has no spread to standardise against (its z-scores
// would be 0, telling a caller nothing): it scores its channels' presence
// instead, (1−w)·[BM25 > 0] + w·[has a cosine], so a query that finds the
// one message that matches on both channels scores 1, as the clear winner
// of a larger set would, not 0. Order is unaffected (one candidate).
func fuseWeighted(cands []candidate, w float64) []float64 {
	w = min(max(w, 0), 1)
	if len(cands) == 1 {
		return []float64{lonePresence(cands[0], w)}
	}
	lex := make([]float64, len(cands))
	for i, c := range cands {
		if c.Lexical != nil {
			lex[i] = *c.Lexical
		}
	}
	vec := vectorColumn(cands)
	standardise(lex)
	standardise(vec)
	out := make([]float64, len(cands))
	for i := range cands {
		out[i] = (1-w)*lex[i] + w*vec[i]
	}
	return out
}

// vectorColumn returns the candidates' cosines (Vector, else VectorUnder),
// the input of fuseWeighted's vector z-scores, a missing one counting the
// lowest cosine of the others.
// When the cosines present are all equal (or there is one) and some are
// missing, it returns their presence instead, 1 or 0: the z-scores of
// missing cosines just below the present ones (z is the same for any gap),
// which would otherwise all be 0, the present ones getting no credit. All
// missing: zeros.
func vectorColumn(cands []candidate) []float64 {
	vec := make([]float64, len(cands))
	vmin, vmax := math.Inf(1), math.Inf(-1)
	missing := false
	for i := range cands {
		v := cands[i].cosine()
		if v == nil {
			vec[i], missing = math.NaN(), true // filled in below
			continue
		}
		vec[i] = *v
		vmin, vmax = min(vmin, *v), max(vmax, *v)
	}
	switch {
	case !missing:
		return vec
	case math.IsInf(vmin, 1):
		clear(vec)
		return vec
	}
	presence := vmin == vmax
	for i, v := range vec {
		switch {
		case presence && math.IsNaN(v):
			vec[i] = 0
		case presence:
			vec[i] = 1
		case math.IsNaN(v):
			vec[i] = vmin
		}
	}
	return vec
}

// cosine returns c's cosine, shown (Vector) or under the threshold
// (VectorUnder); nil when it has none.
func (c *candidate) cosine() *float64 {
	if c.Vector != nil {
		return c.Vector
	}
	return c.VectorUnder
}

// lonePresence is the weighted score of a lone candidate: each channel
// counts 1 when it scored the candidate (BM25 above 0, any cosine).
func lonePresence(c candidate, w float64) float64 {
	var l, v float64
	if c.Lexical != nil && *c.Lexical > 0 {
		l = 1
	}
	if c.Vector != nil {
		v = 1
	}
	return (1-w)*l + w*v
}

// standardise replaces xs by their z-scores; constant input becomes zeros.
func standardise(xs []float64) {
	if len(xs) == 0 {
		return
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(v / float64(len(xs)))
	for i := range xs {
		if sd == 0 {
			xs[i] = 0
		} else {
			xs[i] = (xs[i] - mean) / sd
		}
	}
}
