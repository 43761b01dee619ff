package inspector

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// Bar is a score's bar in percent of the bar's width: it spans from Left
// to Left+Width, between 0 and the score on the run's scale of the
// channel, which runs from the lower of 0 and the run's lowest score to
// the higher of 0 and its highest. A fused score can be negative (the
// weighted fusion standardises: 0 is the candidates' mean), and a cosine
// too: a negative score's bar (Neg) ends at Zero, the place of 0, and
// grows leftwards; without negative scores Zero is 0 and a bar is a
// percentage of the highest score, as before.
type Bar struct {
	Left, Width int
	Neg         bool
	// Zero is where 0 is on the scale, in percent; 0 when no score of
	// the run's channel is negative (no zero line is drawn then).
	Zero int
}

// scale is the range of a channel's scores over a run's recalled turns.
type scale struct{ lo, hi float64 }

// add widens the scale to v (nil: no score).
func (c *scale) add(v *float64) {
	if v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
		c.lo, c.hi = min(c.lo, *v), max(c.hi, *v)
	}
}

// bar is v's bar on the scale: none for no score, 0 or a scale of no
// width; at least 2 wide otherwise, so a bar shows.
func (c scale) bar(v *float64) Bar {
	span := c.hi - c.lo
	if span <= 0 {
		return Bar{}
	}
	at := func(x float64) int { return int(math.Round(100 * (x - c.lo) / span)) }
	b := Bar{Zero: at(0)}
	if v == nil || *v == 0 || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return b
	}
	from, to := at(min(*v, 0)), at(max(*v, 0))
	b.Left, b.Width, b.Neg = from, to-from, *v < 0
	if b.Width < 2 {
		b.Width = 2
		if b.Neg {
			b.Left = max(to-2, 0)
		} else {
			b.Left = min(from, 98)
		}
	}
	return b
}

// scoreNote says what the fused score of rec's recalled turns is, by the
// fusion the record names, and how its bars are drawn; "" when no
// recalled turn has a score.
func scoreNote(rec *journal.MemCtx) string {
	if !slices.ContainsFunc(rec.Recalled, func(r journal.Ref) bool { return r.Score != nil }) {
		return ""
	}
	const bars = ". Bars run from 0 on the run's scale of each channel; a negative score's bar runs left of the line at 0."
	o, p := rec.Options, rec.Options.FusionParams
	if rr := rec.Retrieval.Rerank; rr != nil && rr.Status == recall.RerankOK {
		return "fused: the re-ranker's score (" + rr.Reranker + ")" + bars
	}
	switch {
	case o.Mode == string(recall.ModeLexical) || o.Mode == string(recall.ModeVector):
		return "fused: the " + o.Mode + " channel's score (mode " + o.Mode + ")" + bars
	case strings.HasPrefix(rec.Retrieval.Vector, "unavailable"):
		return "fused: the lexical channel's score (the vector channel was unavailable)" + bars
	case strings.HasPrefix(rec.Retrieval.Lexical, "unavailable"):
		return "fused: the vector channel's score (the lexical channel was unavailable)" + bars
	case o.Fusion == recall.FusionRRF && p != nil:
		return fmt.Sprintf("fused: reciprocal rank fusion of the channels (rrf), Σ 1/(%d + rank)", p.K) + bars
	case o.Fusion == recall.FusionWeighted && p != nil && p.Normalise == recall.NormMax:
		return "fused: the channels' scores fused (weighted" + weight(p) + ", max-normalised): within [0, 1]" + bars
	case o.Fusion == recall.FusionWeighted && p != nil:
		return "fused: the channels' scores fused (weighted" + weight(p) + "), each standardised over the search's candidates: 0 is their mean, below it negative; a lone candidate scores its channels' presence, up to 1" + bars
	}
	return "fused: the channels' scores fused by a fusion this record does not name (recorded before fusions were): weighted standardises them, 0 the candidates' mean, below it negative; rrf is Σ 1/(60 + rank)" + bars
}

// weight is ", vector weight W" of a weighted fusion's parameters.
func weight(p *journal.FusionParams) string {
	if p.VectorWeight == nil {
		return ""
	}
	return fmt.Sprintf(", vector weight %g", *p.VectorWeight)
}
