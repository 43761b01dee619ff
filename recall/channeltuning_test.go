package recall_test

import (
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestChannelTuning: the channel tuning of a search under a resolved
// tuning, its words for a legend's columns and its settings. The lexical
// settings are left out in mode vector, the vector ones in mode lexical;
// the pool is at least topK; a negative context weight turns the
// turn-context rule off, and the turn after and the exchange rule with it.
func TestChannelTuning(t *testing.T) {
	const defaultContext = "with its exchange context (≥ 0.5 × its neighbours')"
	for _, c := range []struct {
		name    string
		tuning  recall.Tuning
		mode    recall.Mode
		topK    int
		want    recall.ChannelTuning
		context string
		params  []string
	}{
		{"Hybrid", recall.Tuning{}, recall.ModeHybrid, 5,
			recall.ChannelTuning{Pool: 100, ContextWeight: 0.5, TurnAfter: true, Exchange: true, K1: 1.2, B: 0.75, Dates: true, AnswerTypes: true, Compounds: true},
			defaultContext, []string{"pool 100", "context 0.5 (before and after)", "exchange", "BM25 k1 1.2 b 0.75", "date terms", "answer types", "compound bonus"}},
		{"Lexical", recall.Tuning{CandidatePool: 3}, recall.ModeLexical, 5,
			recall.ChannelTuning{Pool: 5, ContextWeight: 0.5, TurnAfter: true, K1: 1.2, B: 0.75, Dates: true, AnswerTypes: true, Compounds: true},
			defaultContext, []string{"pool 5", "context 0.5 (before and after)", "BM25 k1 1.2 b 0.75", "date terms", "answer types", "compound bonus"}},
		{"Vector", recall.Tuning{ExactVectors: true, BleveScores: true}, recall.ModeVector, 5,
			recall.ChannelTuning{Pool: 100, ContextWeight: 0.5, TurnAfter: true, Exchange: true, ExactVectors: true},
			defaultContext, []string{"pool 100", "context 0.5 (before and after)", "exchange", "exact vectors"}},
		{"Tuned", recall.Tuning{ContextWeight: 0.3, NoTurnAfter: true, NoExchange: true, NoDates: true, NoAnswerTypes: true, NoCompounds: true, BleveScores: true, BleveMatches: true}, "", 5,
			recall.ChannelTuning{Pool: 100, ContextWeight: 0.3, BleveScores: true, BleveMatches: true},
			"with its exchange context (≥ 0.3 × the turn before's)", []string{"pool 100", "context 0.3 (before)", "bleve's BM25", "bleve matches"}},
		{"ContextOff", recall.Tuning{ContextWeight: -1}, recall.ModeHybrid, 5,
			recall.ChannelTuning{Pool: 100, K1: 1.2, B: 0.75, Dates: true, AnswerTypes: true, Compounds: true},
			"alone (the turn-context rule was off)", []string{"pool 100", "context off", "BM25 k1 1.2 b 0.75", "date terms", "answer types", "compound bonus"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := c.tuning.Resolve(recall.HashID).ChannelTuning(c.mode, c.topK)
			if ch != c.want {
				t.Fatalf("channel tuning %+v, want %+v", ch, c.want)
			}
			if got := ch.ContextText(); got != c.context {
				t.Errorf("context text %q, want %q", got, c.context)
			}
			if got := ch.Params(); !reflect.DeepEqual(got, c.params) {
				t.Errorf("params %q, want %q", got, c.params)
			}
		})
	}
}
