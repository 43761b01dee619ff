package recall

import (
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// ChannelTuning is the tuning that shaped the channels' scores and
// candidates of one search, in every mode, as the search ran it: what a
// reader needs, beside the fusion (FusionParams) and the hybrid rules
// (HybridRules), to say what a turn's lexical and vector scores are,
// since an engine tuned otherwise, or another version with other
// defaults, scores differently. Each setting is recorded as it ran, not
// as a difference from the defaults. The lexical settings (K1 to
// BleveMatches) are zero when the search ran no lexical channel (mode
// vector), the vector ones (Exchange, ExactVectors) when it ran no vector
// channel (mode lexical).
type ChannelTuning struct {
	// Pool is the candidates each channel returned: max(CandidatePool,
	// TopK).
	Pool int
	// ContextWeight is α of the turn-context rule: each
	// channel scored a turn at least α × the score of the turn before it
	// and, with TurnAfter, of the turn after it; 0 when the rule was off
	// (a negative Tuning.ContextWeight), and then TurnAfter and Exchange
	// are false.
	ContextWeight float64
	// TurnAfter is set when the context rule also compared the turn after.
	TurnAfter bool
	// Exchange is set when the vector channel's exchange rule ran: a
	// reply to a question scored at least the query's cosine with the sum
	// of its and the question's vectors (not Tuning.NoExchange).
	Exchange bool
	// K1 and B are the textbook BM25's constants the lexical channel
	// scored with; both 0 with BleveScores, when bleve's
	// own BM25 ranked (Tuning.BleveScores, SQLite only).
	K1, B float64
	// BleveScores is set when bleve's own BM25 ranked (K1 and B are then 0).
	BleveScores bool
	// Dates, AnswerTypes and Compounds are set when the lexical channel
	// scored the dates a query names, the answer types of "How long" and
	// "When" questions and the compound-identifier bonus as terms (not
	// Tuning.NoDates, NoAnswerTypes, NoCompounds).
	Dates, AnswerTypes, Compounds bool
	// BleveMatches is set when bleve enumerated the lexical matches past
	// Tuning.RescoreDepth instead of the shard's postings, and
	// ExactVectors when the vector channel scanned every vector exactly
	// (Tuning.BleveMatches and ExactVectors: measuring knobs of the
	// SQLite backend, off by default, which Postgres ignores).
	BleveMatches, ExactVectors bool
}

// ChannelTuning returns the channel tuning of a search in mode (""
// means ModeHybrid) with topK under t, a tuning resolved for the search's
// embedder (Tuning.Resolve) whose knobs the backend ignores are cleared.
func (t Tuning) ChannelTuning(mode Mode, topK int) ChannelTuning {
	c := ChannelTuning{Pool: max(t.CandidatePool, topK), ContextWeight: max(t.ContextWeight, 0)}
	c.TurnAfter = c.ContextWeight > 0 && !t.NoTurnAfter
	if mode != ModeVector {
		if !t.BleveScores {
			c.K1, c.B = bm25.K1, bm25.B
		}
		c.BleveScores, c.BleveMatches = t.BleveScores, t.BleveMatches
		c.Dates, c.AnswerTypes, c.Compounds = !t.NoDates, !t.NoAnswerTypes, !t.NoCompounds
	}
	if mode != ModeLexical {
		c.Exchange = c.ContextWeight > 0 && !t.NoExchange
		c.ExactVectors = t.ExactVectors
	}
	return c
}

// ContextText says in words how the turn-context rule shaped each
// channel's score of a turn, for a legend of the lexical and vector
// scores after "BM25 of the turn ": "with its exchange context (≥ 0.5 ×
// its neighbours')" (the turn before and the turn after), "… (≥ 0.5 × the
// turn before's)" without TurnAfter, "alone (the turn-context rule was
// off)". It is short enough that a legend's column fits one line.
func (c ChannelTuning) ContextText() string {
	switch {
	case c.ContextWeight <= 0:
		return "alone (the turn-context rule was off)"
	case c.TurnAfter:
		return fmt.Sprintf("with its exchange context (≥ %g × its neighbours')", c.ContextWeight)
	}
	return fmt.Sprintf("with its exchange context (≥ %g × the turn before's)", c.ContextWeight)
}

// Params names each setting of c, in the order the channels apply them:
// "pool 100", "context 0.5 (before and after)" ("context 0.5 (before)",
// "context off"), "exchange", "BM25 k1 1.2 b 0.75" ("bleve's BM25"),
// "bleve matches", "date terms", "answer types", "compound bonus", "exact
// vectors"; a setting that is off is left out, but for the pool and the
// context rule.
func (c ChannelTuning) Params() []string {
	out := []string{fmt.Sprintf("pool %d", c.Pool)}
	switch {
	case c.ContextWeight <= 0:
		out = append(out, "context off")
	case c.TurnAfter:
		out = append(out, fmt.Sprintf("context %g (before and after)", c.ContextWeight))
	default:
		out = append(out, fmt.Sprintf("context %g (before)", c.ContextWeight))
	}
	for _, p := range []struct {
		on   bool
		text string
	}{
		{c.Exchange, "exchange"},
		{c.K1 != 0 || c.B != 0, fmt.Sprintf("BM25 k1 %g b %g", c.K1, c.B)},
		{c.BleveScores, "bleve's BM25"},
		{c.BleveMatches, "bleve matches"},
		{c.Dates, "date terms"},
		{c.AnswerTypes, "answer types"},
		{c.Compounds, "compound bonus"},
		{c.ExactVectors, "exact vectors"},
	} {
		if p.on {
			out = append(out, p.text)
		}
	}
	return out
}

// Text is Params joined by " · ".
func (c ChannelTuning) Text() string { return strings.Join(c.Params(), " · ") }
