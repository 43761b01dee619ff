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
	// Left and Width are the bar's start and length, in percent of the
	// bar's width (0 to 100); both 0 for no score.
	Left, Width int
	// Neg is set for a negative score: the bar ends at Zero.
	Neg bool
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

// hybridRules names the rules recall applied to the fused scores of rec's
// hybrid search after the fusion, as mnemo's "scores:" lines do: those the
// record names (recall.HybridRules.Text) with their weights, "then mnemo's
// hybrid rules (…; speaker and date boosts) [session evidence 0.15 ·
// speaker boost 2 sd · …]"; in a record written before the rules were
// recorded, this version's defaults by the record's scope and embedder
// (recall.HybridRulesText), said to be so.
func hybridRules(rec *journal.MemCtx) string {
	r := rec.Options.Rules
	if r == nil {
		return recall.HybridRulesText(rec.Options.Scope, rec.Retrieval.Embedder) + " " + recall.RulesNotRecorded
	}
	h := recall.HybridRules(*r)
	if p := h.Params(); len(p) > 0 {
		return h.Text() + " [" + strings.Join(p, " · ") + "]"
	}
	return h.Text()
}

// ranking opens the note of a hybrid run's fused score.
const ranking = "fused: the ranking score of this search, comparable within it only, may be negative: "

// scoreNote says what the fused score of rec's recalled turns is, by the
// fusion the record names, what the lexical and vector scores are, and how
// its bars are drawn; "" when no recalled turn has a score. In hybrid mode
// the fused score is the fusion's, then the hybrid rules' (hybridRules):
// no formula of the channels' scores alone. A lone candidate, which the
// weighted fusion scores by its channels' presence and no rule changes,
// is named as a possibility: the record's hits do not say whether a hit
// was the only candidate.
func scoreNote(rec *journal.MemCtx) string {
	if !slices.ContainsFunc(rec.Recalled, func(r journal.Ref) bool { return r.Score != nil }) {
		return ""
	}
	const bars = ". Bars run from 0 on the run's scale of each channel; a negative score's bar runs left of the line at 0."
	return fusedNote(rec) + columns(rec) + bars
}

// columns is scoreNote's sentence on the lexical and vector scores: each
// channel's score of the turn with its exchange context, by the
// turn-context rule the record names, and its channel tuning (". lexical:
// BM25 of the turn with its exchange context (≥ 0.5 × its neighbours');
// vector: … [pool 100 · context 0.5 (before and after) · …]",
// recall.ChannelTuning); in a record written before the
// channel tuning was recorded, this version's defaults for its embedder,
// said to be so.
func columns(rec *journal.MemCtx) string {
	var c recall.ChannelTuning
	var note string
	if ch := rec.Options.Channels; ch != nil {
		c = recall.ChannelTuning(*ch)
		note = " [" + c.Text() + "]"
	} else {
		c = recall.Tuning{}.Resolve(rec.Retrieval.Embedder).ChannelTuning(recall.Mode(rec.Options.Mode), rec.Options.TopK)
		note = " " + recall.ChannelsNotRecorded
	}
	ctx := c.ContextText()
	return ". lexical: BM25 of the turn " + ctx + "; vector: cosine similarity of the turn " + ctx + note
}

// fusedNote is scoreNote's sentence on the fused score.
func fusedNote(rec *journal.MemCtx) string {
	o, p := rec.Options, rec.Options.FusionParams
	hybridRules := hybridRules(rec)
	if rr := rec.Retrieval.Rerank; rr != nil && rr.Status == recall.RerankOK {
		return "fused: the re-ranker's score (" + rr.Reranker + ")"
	}
	switch {
	case o.Mode == string(recall.ModeLexical) || o.Mode == string(recall.ModeVector):
		return "fused: the " + o.Mode + " channel's score (mode " + o.Mode + ")"
	case strings.HasPrefix(rec.Retrieval.Vector, "unavailable"):
		return ranking + "the lexical channel's score (the vector channel was unavailable), " + hybridRules
	case strings.HasPrefix(rec.Retrieval.Lexical, "unavailable"):
		return ranking + "the vector channel's score (the lexical channel was unavailable), " + hybridRules
	case o.Fusion == recall.FusionRRF && p != nil:
		return fmt.Sprintf(ranking+"reciprocal rank fusion of the channels (rrf: Σ 1/(%d + rank)), ", p.K) + hybridRules
	case o.Fusion == recall.FusionWeighted && p != nil && p.Normalise == recall.NormMax:
		return ranking + "the channels' scores fused (weighted" + weight(p) + ", max-normalised), " + hybridRules
	case o.Fusion == recall.FusionWeighted && p != nil:
		return ranking + "the channels' scores fused (weighted" + weight(p) + ": each standardised over the candidates, 0 their mean), " + hybridRules + "; a lone candidate scores its channels' presence, up to 1"
	}
	return ranking + "the channels fused by a fusion this record does not name (recorded before fusions were: weighted standardises each channel over the candidates, 0 their mean; rrf sums 1/(60 + rank)), " + hybridRules
}

// weight is ", vector weight W" of a weighted fusion's parameters.
func weight(p *journal.FusionParams) string {
	if p.VectorWeight == nil {
		return ""
	}
	return fmt.Sprintf(", vector weight %g", *p.VectorWeight)
}
