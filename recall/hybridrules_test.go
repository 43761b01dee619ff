package recall_test

import (
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestHybridRules: the rules a hybrid search applies under a resolved
// tuning, their words and their weights. The session rules run
// resource-wide only and the date rule not with NoDates; a negative
// weight turns its rule off. Under the engine's defaults the words are
// HybridRulesText's, which legends of searches (not of records) say.
func TestHybridRules(t *testing.T) {
	for _, c := range []struct {
		name     string
		tuning   recall.Tuning
		embedder string
		scope    recall.Scope
		want     recall.HybridRules
		text     string // "" means HybridRulesText(scope, embedder)
		params   []string
	}{
		{"HashDefault", recall.Tuning{}, recall.HashID, recall.ScopeResource,
			recall.HybridRules{ExchangeOrder: true, SpeakerWeight: 2, DateWeight: 2}, "",
			[]string{"speaker boost 2 sd", "date boost 2 sd", "exchange order"}},
		{"SemanticDefault", recall.Tuning{}, "use-lite", recall.ScopeResource,
			recall.HybridRules{ExchangeOrder: true, SessionWeight: 0.15, TopicWeight: 0.15, SpeakerWeight: 2, DateWeight: 2}, "",
			[]string{"session evidence 0.15", "session topic 0.15", "speaker boost 2 sd", "date boost 2 sd", "exchange order"}},
		{"SemanticThread", recall.Tuning{}, "use-lite", recall.ScopeThread,
			recall.HybridRules{ExchangeOrder: true, SpeakerWeight: 2, DateWeight: 2}, "",
			[]string{"speaker boost 2 sd", "date boost 2 sd", "exchange order"}},
		{"TopicOnly", recall.Tuning{SessionWeight: -1, TopicWeight: 0.3, NoDates: true}, recall.HashID, recall.ScopeResource,
			recall.HybridRules{ExchangeOrder: true, TopicWeight: 0.3, SpeakerWeight: 2},
			"then mnemo's hybrid rules (a user's turn takes the better of its score and its reply's, unless the question asks what the agent said or names the conversation; raised by its session's topic; speaker boost)",
			[]string{"session topic 0.3", "speaker boost 2 sd", "exchange order"}},
		{"DateOnly", recall.Tuning{NoExchangeOrder: true, SpeakerWeight: -1, DateWeight: 1.5}, recall.HashID, recall.ScopeResource,
			recall.HybridRules{DateWeight: 1.5}, "then mnemo's hybrid rules (date boost)", []string{"date boost 1.5 sd"}},
		{"AllOff", recall.Tuning{NoExchangeOrder: true, SessionWeight: -1, TopicWeight: -1, SpeakerWeight: -1, DateWeight: -1}, "use-lite", recall.ScopeResource,
			recall.HybridRules{}, "then none of mnemo's hybrid rules (all turned off)", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := c.tuning.Resolve(c.embedder).HybridRules(c.scope)
			if h != c.want {
				t.Fatalf("rules %+v, want %+v", h, c.want)
			}
			want := c.text
			if want == "" {
				want = recall.HybridRulesText(string(c.scope), c.embedder)
			}
			if got := h.Text(); got != want {
				t.Errorf("text %q, want %q", got, want)
			}
			if got := h.Params(); !reflect.DeepEqual(got, c.params) {
				t.Errorf("params %q, want %q", got, c.params)
			}
		})
	}
}
