package recall

import (
	"fmt"
	"strings"
)

// HybridRules are the rules a hybrid search applies to the fused scores
// after the fusion and their parameters, as the search applied
// them: what a reader needs, beside the fusion (FusionParams), to say what
// a hit's score and place are, since an engine tuned otherwise, or
// another version, ranks differently. A weight of 0 means the rule did
// not run.
type HybridRules struct {
	// ExchangeOrder is whether the exchange order rule ran
	// (off with Tuning.NoExchangeOrder).
	ExchangeOrder bool
	// SessionWeight is β of the session-evidence rule and
	// TopicWeight γ of the session-topic rule; 0 in a thread's search
	// (they run resource-wide only) and when the tuning turns them off
	// (a negative weight: hash-384's defaults).
	SessionWeight, TopicWeight float64
	// SpeakerWeight is δ of the speaker rule and DateWeight
	// δ of the date rule (0 with Tuning.NoDates), in
	// standard deviations of the fused scores; 0 when turned off.
	SpeakerWeight, DateWeight float64
}

// HybridRules returns the rules a hybrid search of scope ("" means
// ScopeResource) applies under t, a tuning resolved for the search's
// embedder (Tuning.Resolve), as the search applies them. A rule that runs
// may still change no score: the speaker and date rules raise only the
// turns of a speaker or date the query names, the topic rule needs the
// query's vector, and none changes a lone candidate's score.
func (t Tuning) HybridRules(scope Scope) HybridRules {
	h := HybridRules{ExchangeOrder: !t.NoExchangeOrder, SpeakerWeight: max(t.SpeakerWeight, 0)}
	if !t.NoDates {
		h.DateWeight = max(t.DateWeight, 0)
	}
	if scope != ScopeThread {
		h.SessionWeight, h.TopicWeight = max(t.SessionWeight, 0), max(t.TopicWeight, 0)
	}
	return h
}

// Text says h in words, as HybridRulesText says the rules a search of
// the engine's defaults applies, for a legend of the scores: the text
// begins "then mnemo's hybrid rules (" and names only the rules that ran,
// without their weights (Params), or is "then none of mnemo's hybrid
// rules (all turned off)"; it has no final period.
func (h HybridRules) Text() string {
	var rules []string
	if h.ExchangeOrder {
		rules = append(rules, exchangeRuleText)
	}
	switch {
	case h.SessionWeight > 0:
		rules = append(rules, sessionRuleText)
	case h.TopicWeight > 0:
		rules = append(rules, "raised by its session's topic")
	}
	switch {
	case h.SpeakerWeight > 0 && h.DateWeight > 0:
		rules = append(rules, "speaker and date boosts")
	case h.SpeakerWeight > 0:
		rules = append(rules, "speaker boost")
	case h.DateWeight > 0:
		rules = append(rules, "date boost")
	}
	if len(rules) == 0 {
		return "then none of mnemo's hybrid rules (all turned off)"
	}
	return "then mnemo's hybrid rules (" + strings.Join(rules, "; ") + ")"
}

// Params names each rule of h that ran with its weight, in the order
// they apply: "session evidence 0.15", "session topic 0.15", "speaker
// boost 2 sd", "date boost 2 sd", "exchange order"; none when no rule
// ran.
func (h HybridRules) Params() []string {
	var out []string
	if h.SessionWeight > 0 {
		out = append(out, fmt.Sprintf("session evidence %g", h.SessionWeight))
	}
	if h.TopicWeight > 0 {
		out = append(out, fmt.Sprintf("session topic %g", h.TopicWeight))
	}
	if h.SpeakerWeight > 0 {
		out = append(out, fmt.Sprintf("speaker boost %g sd", h.SpeakerWeight))
	}
	if h.DateWeight > 0 {
		out = append(out, fmt.Sprintf("date boost %g sd", h.DateWeight))
	}
	if h.ExchangeOrder {
		out = append(out, "exchange order")
	}
	return out
}
