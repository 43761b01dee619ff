package inspector

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestScaleBar: a bar spans from 0 to the score on the run's scale of the
// channel, from min(0, lowest) to max(0, highest): a negative score's bar
// ends at the zero line and has a width (it had none: widths were a
// percentage of the highest score, and a negative one was 0); without
// negative scores a bar is a percentage of the highest, as before.
func TestScaleBar(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name   string
		scores []float64
		v      *float64
		want   Bar
	}{
		{"Highest", []float64{1, 2}, f(2), Bar{Left: 0, Width: 100}},
		{"Half", []float64{1, 2}, f(1), Bar{Left: 0, Width: 50}},
		{"Tiny", []float64{0.001, 2}, f(0.001), Bar{Left: 0, Width: 2}},
		{"NoScore", []float64{1, 2}, nil, Bar{}},
		{"MixedNegative", []float64{-1, 1}, f(-1), Bar{Left: 0, Width: 50, Neg: true, Zero: 50}},
		{"MixedPositive", []float64{-1, 1}, f(1), Bar{Left: 50, Width: 50, Zero: 50}},
		{"MixedSmallNegative", []float64{-1, 1}, f(-0.001), Bar{Left: 48, Width: 2, Neg: true, Zero: 50}},
		{"MixedZero", []float64{-1, 1}, f(0), Bar{Zero: 50}},
		{"AllNegative", []float64{-2, -1}, f(-1), Bar{Left: 50, Width: 50, Neg: true, Zero: 100}},
		{"AllNegativeLowest", []float64{-2, -1}, f(-2), Bar{Left: 0, Width: 100, Neg: true, Zero: 100}},
		{"AllZero", []float64{0, 0}, f(0), Bar{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s scale
			for _, x := range c.scores {
				s.add(&x)
			}
			if got := s.bar(c.v); got != c.want {
				t.Errorf("bar of %v over %v: %+v, want %+v", c.v, c.scores, got, c.want)
			}
		})
	}
}

// TestScoreNoteRules: the run page's note on a hybrid run's fused score
// names the hybrid rules applied after the fusion, by every fusion a
// record names (an rrf run with use-lite scores up to 1.5, far above
// Σ 1/(60 + rank)'s 2/61, and a weighted run's exchange order rule gives
// a user's turn its reply's better score); it said the fusion's formula
// alone. A single-channel run's score is the channel's own, with no rule.
func TestScoreNoteRules(t *testing.T) {
	score, w := 1.496, 0.5
	const hybridRules = "then mnemo's hybrid rules (a user's turn takes the better of its score and its reply's, unless the question asks what the agent said or names the conversation"
	for _, c := range []struct {
		name      string
		o         journal.Options
		retrieval journal.Retrieval
		want      []string
		not       []string
	}{
		{"RRF", journal.Options{Mode: "hybrid", Fusion: recall.FusionRRF, FusionParams: &journal.FusionParams{K: 60}}, journal.Retrieval{Lexical: "ok", Vector: "ok"},
			[]string{"Σ 1/(60 + rank)", hybridRules, "may be negative"}, nil},
		{"Weighted", journal.Options{Mode: "hybrid", Fusion: recall.FusionWeighted, FusionParams: &journal.FusionParams{VectorWeight: &w, Normalise: recall.NormStandardise}}, journal.Retrieval{Lexical: "ok", Vector: "ok"},
			[]string{"vector weight 0.5", "standardised", hybridRules}, nil},
		{"MaxNorm", journal.Options{Mode: "hybrid", Fusion: recall.FusionWeighted, FusionParams: &journal.FusionParams{VectorWeight: &w, Normalise: recall.NormMax}}, journal.Retrieval{Lexical: "ok", Vector: "ok"},
			[]string{"max-normalised", hybridRules}, []string{"within [0, 1]"}},
		{"Unknown", journal.Options{Mode: "hybrid"}, journal.Retrieval{Lexical: "ok", Vector: "ok"},
			[]string{"does not name", "1/(60 + rank)", hybridRules, "(this version's defaults: the record predates the record of the rules that ran)"}, nil},
		{"Recorded", journal.Options{Mode: "hybrid", Fusion: recall.FusionRRF, FusionParams: &journal.FusionParams{K: 60}, Rules: &journal.Rules{ExchangeOrder: true, SessionWeight: 0.3, SpeakerWeight: 2}},
			journal.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID},
			[]string{hybridRules + "; standardised again and raised by its session's evidence; speaker boost) [session evidence 0.3 · speaker boost 2 sd · exchange order]"},
			[]string{"date boost", "this version's defaults"}},
		{"NoneRan", journal.Options{Mode: "hybrid", Fusion: recall.FusionRRF, FusionParams: &journal.FusionParams{K: 60}, Rules: &journal.Rules{}}, journal.Retrieval{Lexical: "ok", Vector: "ok"},
			[]string{"Σ 1/(60 + rank)), then none of mnemo's hybrid rules (all turned off)"}, []string{hybridRules}},
		{"VectorDown", journal.Options{Mode: "hybrid", Fusion: recall.FusionWeighted}, journal.Retrieval{Lexical: "ok", Vector: "unavailable: down"},
			[]string{"the lexical channel's score", hybridRules}, nil},
		{"Lexical", journal.Options{Mode: "lexical"}, journal.Retrieval{Lexical: "ok", Vector: "off"},
			[]string{"the lexical channel's score (mode lexical)"}, []string{hybridRules}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &journal.MemCtx{Options: c.o, Retrieval: c.retrieval, Recalled: []journal.Ref{{Score: &score}}}
			got := scoreNote(rec)
			for _, w := range append(c.want, "BM25 of the turn with its exchange context") {
				if !strings.Contains(got, w) {
					t.Errorf("note %q lacks %q", got, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("note %q says %q", got, w)
				}
			}
		})
	}
}

// TestScoreNoteChannels: the run page's note on the lexical and vector
// scores says the turn-context rule the record names (α 0.3 through the
// turn before reads "at least 0.3 × the turn before's", never the default
// 0.5) and its channel tuning in brackets; a record without its channel
// tuning gives this version's default, said to be so; the rule off reads
// "alone".
func TestScoreNoteChannels(t *testing.T) {
	score, w := 0.8, 0.5
	for _, c := range []struct {
		name     string
		channels *journal.Channels
		want     []string
		not      []string
	}{
		{"Alpha", &journal.Channels{Pool: 50, ContextWeight: 0.3, Exchange: true, K1: 1.2, B: 0.75},
			[]string{"lexical: BM25 of the turn with its exchange context (≥ 0.3 × the turn before's); vector: cosine similarity of the turn with its exchange context (≥ 0.3 × the turn before's) [pool 50 · context 0.3 (before) · exchange · BM25 k1 1.2 b 0.75]"},
			[]string{"0.5 ×", "this version's default"}},
		{"Default", &journal.Channels{Pool: 100, ContextWeight: 0.5, TurnAfter: true, Exchange: true, K1: 1.2, B: 0.75, Dates: true, AnswerTypes: true, Compounds: true},
			[]string{"BM25 of the turn with its exchange context (≥ 0.5 × its neighbours')", "[pool 100 · context 0.5 (before and after) · exchange · BM25 k1 1.2 b 0.75 · date terms · answer types · compound bonus]"},
			[]string{"this version's default"}},
		{"Off", &journal.Channels{Pool: 100, K1: 1.2, B: 0.75}, []string{"BM25 of the turn alone (the turn-context rule was off)"}, []string{"exchange context"}},
		{"NotRecorded", nil, []string{"(≥ 0.5 × its neighbours') (this version's default: the record predates the record of the channels' tuning)"}, []string{"[pool"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &journal.MemCtx{Options: journal.Options{TopK: 3, Mode: "hybrid", Fusion: recall.FusionWeighted, FusionParams: &journal.FusionParams{VectorWeight: &w, Normalise: recall.NormStandardise}, Rules: &journal.Rules{ExchangeOrder: true}, Channels: c.channels},
				Retrieval: journal.Retrieval{Lexical: "ok", Vector: "ok", Embedder: recall.HashID}, Recalled: []journal.Ref{{Score: &score}}}
			got := scoreNote(rec)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("note %q lacks %q", got, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(got, w) {
					t.Errorf("note %q says %q", got, w)
				}
			}
		})
	}
}

// TestScoreNoteSessionRules: the run page names the session rules only
// where they ran, as mnemo's "scores:" line does: a resource-wide run with
// an embedder other than hash-384, and as a condition when the record does
// not name its embedder. It named them for every run, which with hash-384
// (whose defaults turn them off) or in a thread's search did not happen.
func TestScoreNoteSessionRules(t *testing.T) {
	const session = "standardised again and raised by its session's evidence"
	score, w := 0.8, 0.5
	for _, c := range []struct {
		name, scope, embedder string
		want                  string // "" when the note must not name the session rules
	}{
		{"UseLiteResource", "resource", "use-lite", "conversation; " + session + "; speaker"},
		{"UseLiteThread", "thread", "use-lite", ""},
		{"HashResource", "resource", recall.HashID, ""},
		{"EmbedderNotSaid", "resource", "", "unless the embedder was hash-384, " + session},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &journal.MemCtx{
				Options:   journal.Options{Mode: "hybrid", Scope: c.scope, Fusion: recall.FusionWeighted, FusionParams: &journal.FusionParams{VectorWeight: &w, Normalise: recall.NormStandardise}},
				Retrieval: journal.Retrieval{Lexical: "ok", Vector: "ok", Embedder: c.embedder},
				Recalled:  []journal.Ref{{Score: &score}, {Score: &score}},
			}
			got := scoreNote(rec)
			if c.want == "" && strings.Contains(got, session) || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("note %q; want %q (\"\": no session rule)", got, c.want)
			}
		})
	}
}
