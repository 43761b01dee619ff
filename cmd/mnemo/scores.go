package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// scoredSearch is what a "scores:" legend needs to know of a search to say
// what its hits' score is (recall.fuse): the mode and fusion it ran with,
// how its channels and re-rank stage fared, its topK and how many hits it
// scored. mnemo search and mnemo context (and memctx) print the line.
type scoredSearch struct {
	mode recall.Mode
	// fusion is the fusion that ran in hybrid mode (recall.FusionWeighted
	// or recall.FusionRRF); "" when it is not known: a memctx record
	// written before the fusion was recorded does not say.
	fusion string
	// norm is the weighted fusion's normalisation (recall.NormStandardise
	// or NormMax; "" means standardise, mnemo search's), k rrf's constant
	// (0 means 60).
	norm string
	k    int
	// lexical and vector are the channels' statuses (recall.Retrieval).
	lexical, vector string
	// reranker names the re-ranker whose scores replaced the fused ones
	// (its status was ok); "" when none did.
	reranker string
	topK     int
	// threshold is the search's minimum cosine (recall.Options.Threshold;
	// 0: none): in hybrid mode a lexical candidate's cosine under it is
	// not shown ("-").
	threshold float64
	// hits counts the hits that have a score (range neighbours have none).
	hits int
	// scope is the search's (recall.ScopeThread or ScopeResource; ""
	// means resource) and embedder the one it ran with (recall.Retrieval's
	// Embedder; "" when not said): the session rules ran only in a
	// resource-wide search with an embedder other than hash-384 (rules).
	scope, embedder string
	// recorded is the hybrid rules a memctx record names (nil: the
	// engine's defaults by scope and embedder, recall.HybridRulesText),
	// and unrecorded says the record is one written before the rules
	// were recorded, which does not say which ran.
	recorded   *recall.HybridRules
	unrecorded bool
	// channels is the channel tuning the search ran with (the engine's
	// for mnemo search, the record's for memctx); nil in a record written
	// before it was recorded, whose columns then say this version's
	// defaults (recall.Tuning.Resolve), as such.
	channels *recall.ChannelTuning
}

// lexicalColumn and vectorColumn say what the lexical and vector scores
// beside the score are: each channel's score of the turn with its
// exchange context (a turn scores at least α × the turn before's or
// after's; docs/recall.md, "The turns before and after"), not of the message
// alone, by the search's turn-context rule (columnContext).
func (s scoredSearch) lexicalColumn() string {
	return "lexical: BM25 of the turn " + s.columnContext()
}

func (s scoredSearch) vectorColumn() string {
	return "vector: cosine similarity of the turn " + s.columnContext()
}

// columnContext says how the turn-context rule of s shaped its channels'
// scores (recall.ChannelTuning.ContextText): "with its exchange context
// (≥ 0.5 × its neighbours')" under the defaults; a record without its
// channel tuning gives this version's defaults for its embedder, said to
// be so.
func (s scoredSearch) columnContext() string {
	if s.channels != nil {
		return s.channels.ContextText()
	}
	d := recall.Tuning{}.Resolve(s.embedder).ChannelTuning(s.mode, s.topK)
	return d.ContextText() + " " + recall.ChannelsNotRecorded
}

// shownScores says what a listing shows of its rows' scores: whether some
// row shows a score, a lexical score, a vector score (a number, not "-"),
// and whether some cell shows "-" (no score).
type shownScores struct{ score, lexical, vector, dash bool }

// legend returns the parts of the "scores:" legend of s for a listing
// that shows sh: the score's part, then the lexical and vector columns'
// parts when some row holds a number in them, then "-: no score" when a
// cell shows "-"; none when no row shows a score (a context whose recalled
// turns the budget dropped, a search with no hit), as there is nothing to
// explain.
func (s scoredSearch) legend(sh shownScores) []string {
	if !sh.score {
		return nil
	}
	parts := []string{"score: " + s.score()}
	if sh.lexical {
		parts = append(parts, s.lexicalColumn())
	}
	if sh.vector {
		parts = append(parts, s.vectorColumn())
	}
	if sh.dash {
		parts = append(parts, s.dash())
	}
	return parts
}

// dash is the legend's part for "-": no score, and in a hybrid search
// with a threshold also a cosine under it, which a hit never shows
// (recall.Options.Threshold) though the weighted fusion, standardised,
// counted it; the max-normalised and rrf fusions did not, and a memctx
// record that does not name its fusion cannot say.
func (s scoredSearch) dash() string {
	if s.threshold == 0 || s.mode != recall.ModeHybrid {
		return "-: no score"
	}
	part := fmt.Sprintf("-: no score, or a cosine under the threshold (%g): not shown", s.threshold)
	switch {
	case s.fusion == "": // a record that does not say which fusion ran
		return part
	case s.fusion == recall.FusionWeighted && s.norm != recall.NormMax:
		return part + ", though the fusion counted it"
	}
	return part + ", and the fusion did not count it"
}

// rules names the rules recall applied to the fused scores of s after the
// fusion: those a memctx record names or the engine's tuning gave mnemo
// search (recall.HybridRules.Text), else the engine's defaults
// (recall.HybridRulesText: the exchange order, the session rules when
// they ran, the speaker and date boosts), said as such for a record that
// predates the rules' record.
func (s scoredSearch) rules() string {
	switch {
	case s.recorded != nil:
		return s.recorded.Text()
	case s.unrecorded:
		return recall.HybridRulesText(s.scope, s.embedder) + " " + recall.RulesNotRecorded
	}
	return recall.HybridRulesText(s.scope, s.embedder)
}

// recordedRules returns the hybrid rules r names, nil for none.
func recordedRules(r *journal.Rules) *recall.HybridRules {
	if r == nil {
		return nil
	}
	h := recall.HybridRules(*r)
	return &h
}

// recordRulesText words a record's hybrid rules with their weights for the
// memctx options: "session evidence 0.15 · speaker boost 2 sd · …", "none
// (all turned off)", or "not recorded" for a record written before they
// were.
func recordRulesText(o journal.Options) string {
	h := recordedRules(o.Rules)
	switch {
	case h == nil:
		return "not recorded (the record predates them)"
	case len(h.Params()) == 0:
		return "none (all turned off)"
	}
	return strings.Join(h.Params(), " · ")
}

// ranking opens the legend of a hybrid search's score: what the number is
// for and what it is not.
const ranking = "the ranking score of this search, comparable within it only, may be negative: "

// score says what a hit's score is. In a single-channel mode it is the
// channel's own. In hybrid mode it is the ranking score of the search:
// the fusion of the channels (weighted: each standardised over the
// candidates; rrf: Σ 1/(k + rank)), or the one channel that answered, then
// the hybrid rules (rules), so no formula of the channels' scores
// alone gives it. A lone candidate, which the weighted fusion scores by its
// channels' presence (recall's lonePresence) and no rule changes, is said
// so: a search with fewer scored hits than topK returned every candidate,
// so one such hit was the lone candidate; with topK 1 one hit may be
// either, and both are said.
func (s scoredSearch) score() string {
	const lone = "the only candidate's channels' presence (--fusion weighted: one candidate has nothing to standardise against, and no hybrid rule changes it): 1 when both channels scored it, less when one did"
	hybridRules := s.rules()
	weighted := ranking + "the channels' scores fused (--fusion weighted: each standardised over the candidates, 0 their mean), " + hybridRules
	switch {
	case s.reranker != "":
		return "the re-ranker's (" + s.reranker + "), over the fused order's best candidates"
	case s.mode == recall.ModeLexical:
		return "the lexical channel's (--mode lexical)"
	case s.mode == recall.ModeVector:
		return "the vector channel's (--mode vector)"
	case strings.HasPrefix(s.vector, "unavailable"):
		return ranking + "the lexical channel's (the vector channel was unavailable), " + hybridRules
	case strings.HasPrefix(s.lexical, "unavailable"):
		return ranking + "the vector channel's (the lexical channel was unavailable), " + hybridRules
	case s.fusion == recall.FusionRRF:
		return fmt.Sprintf(ranking+"reciprocal rank fusion of the channels (--fusion rrf: Σ 1/(%d + rank)), "+hybridRules, cmp.Or(s.k, 60))
	case s.fusion == "":
		return ranking + "the channels fused by the fusion the run used (not recorded: the record predates it; --fusion weighted, the default, standardises each channel over the candidates, a lone candidate scoring its channels' presence, up to 1; --fusion rrf sums 1/(60 + rank)), " + hybridRules
	case s.norm == recall.NormMax:
		return ranking + "the channels' scores fused (--fusion weighted, max-normalised: BM25 divided by the candidates' highest, cosine scaled from their lowest to their highest), " + hybridRules
	case s.hits == 1 && s.topK > 1:
		return lone
	case s.hits == 1:
		return weighted + "; if it was the only candidate, its channels' presence instead: 1 when both channels scored it, less when one did"
	}
	return weighted
}

// searchScores is the scoredSearch of mnemo search: options o, as
// resolved by rf.options, the tuning t the engine searched with
// (engine.Engine.RecallTuning: its hybrid rules and channel tuning), and
// what the search returned.
func searchScores(o recall.Options, t recall.Tuning, r recall.Retrieval, hits []searchHit) scoredSearch {
	s := scoredSearch{mode: o.Mode, fusion: o.Fusion, lexical: r.Lexical, vector: r.Vector, topK: o.TopK, threshold: o.Threshold, scope: string(o.Scope), embedder: r.Embedder}
	if s.fusion == "" {
		s.fusion = recall.DefaultFusion
	}
	rules, channels := t.HybridRules(o.Scope), t.ChannelTuning(o.Mode, o.TopK)
	s.recorded, s.channels = &rules, &channels
	if rr := r.Rerank; rr != nil && rr.Status == recall.RerankOK {
		s.reranker = rr.Reranker
	}
	for _, h := range hits {
		if h.Score != nil {
			s.hits++
		}
	}
	return s
}

// memctxScores is the scoredSearch of the recall a memctx record r
// recorded, with the fusion and hybrid rules it records (none in a record
// written before they were recorded: not known).
func memctxScores(r *journal.MemCtx) scoredSearch {
	o := r.Options
	s := scoredSearch{mode: recall.Mode(o.Mode), fusion: o.Fusion, lexical: r.Retrieval.Lexical, vector: r.Retrieval.Vector, topK: o.TopK, threshold: o.Threshold, scope: o.Scope, embedder: r.Retrieval.Embedder}
	if p := o.FusionParams; p != nil {
		s.norm, s.k = p.Normalise, p.K
	}
	s.recorded, s.unrecorded = recordedRules(o.Rules), o.Rules == nil
	if o.Channels != nil {
		c := recall.ChannelTuning(*o.Channels)
		s.channels = &c
	}
	if rr := r.Retrieval.Rerank; rr != nil && rr.Status == recall.RerankOK {
		s.reranker = rr.Reranker
	}
	for _, refs := range [][]journal.Ref{r.Recalled, r.Dropped} { // a hit the budget dropped was scored too
		for _, x := range refs {
			if x.Score != nil {
				s.hits++
			}
		}
	}
	return s
}

// recordChannelsText words a record's channel tuning for the memctx
// options (recall.ChannelTuning.Text): under the defaults of a hybrid run
// "pool 100 · context 0.5 (before and after) · exchange · BM25 k1 1.2 b
// 0.75 · date terms · answer types · compound bonus"; "not recorded" for a
// record written before it was.
func recordChannelsText(o journal.Options) string {
	if o.Channels == nil {
		return "not recorded (the record predates it)"
	}
	return recall.ChannelTuning(*o.Channels).Text()
}

// fusionText words a record's fusion and its parameters for the memctx
// options: "weighted (vector weight 0.15, standardise)", "rrf (k 60)".
func fusionText(o journal.Options) string {
	p := o.FusionParams
	switch {
	case p == nil:
		return o.Fusion
	case o.Fusion == recall.FusionRRF:
		return fmt.Sprintf("%s (k %d)", o.Fusion, p.K)
	case p.VectorWeight != nil:
		return fmt.Sprintf("%s (vector weight %g, %s)", o.Fusion, *p.VectorWeight, p.Normalise)
	}
	return fmt.Sprintf("%s (%s)", o.Fusion, p.Normalise)
}

// legendWidth is the width in characters that printLegend wraps a
// "scores:" legend at; on one line it ran to about 470.
const legendWidth = 100

// legendIndent begins each line of a legend after its first, under its
// first word ("scores: " is as wide).
const legendIndent = "        "

// printLegend writes the "scores:" legend of parts to w: each part (what
// one column holds: "score: …", "lexical: …") begins a line, the first
// after "scores: ", the others indented by legendIndent, and is wrapped at
// spaces to legendWidth characters a line (a wider word stays whole),
// its continuation lines indented alike. Joining the lines with one
// space, the indents taken out, gives "scores: " and the parts joined by
// spaces back. No parts write nothing.
func printLegend(w io.Writer, parts ...string) {
	if len(parts) == 0 {
		return
	}
	line := "scores:"
	for i, part := range parts {
		if i > 0 {
			fmt.Fprintln(w, line)
			line = legendIndent[1:] // the word's space comes next
		}
		for j, word := range strings.Split(part, " ") {
			if j > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > legendWidth {
				fmt.Fprintln(w, line)
				line = legendIndent[1:]
			}
			line += " " + word
		}
	}
	fmt.Fprintln(w, line)
}
