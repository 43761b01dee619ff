package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestMemCtxRules: a run's memctx record names the hybrid rules that ran
// on the fused scores after the fusion and their weights (exchange order,
// session evidence and topic in a resource-wide search, speaker and date
// boosts), as the engine's tuning resolved them, in the stored bytes as in
// the returned and decoded record; none when recall was off or ran one
// channel, and {} when the tuning turned every rule off. Replay rebuilds
// the run from the record's turns without searching again: the same
// record with its rules taken out or changed replays the same prompt.
func TestMemCtxRules(t *testing.T) {
	cases := []struct {
		name   string
		tuning recall.Tuning
		recall *recall.Options
		want   string // the options' rules as stored, "" for none
	}{
		{"Default", recall.Tuning{}, &recall.Options{TopK: 2}, `"rules":{"exchangeOrder":true,"speakerWeight":2,"dateWeight":2}`},
		{"Session", recall.Tuning{SessionWeight: 0.3, TopicWeight: 0.2}, &recall.Options{TopK: 2, Fusion: recall.FusionRRF},
			`"rules":{"exchangeOrder":true,"sessionWeight":0.3,"topicWeight":0.2,"speakerWeight":2,"dateWeight":2}`},
		{"SessionThread", recall.Tuning{SessionWeight: 0.3, TopicWeight: 0.2}, &recall.Options{TopK: 2, Scope: recall.ScopeThread},
			`"rules":{"exchangeOrder":true,"speakerWeight":2,"dateWeight":2}`},
		{"Weights", recall.Tuning{SpeakerWeight: 1.5, DateWeight: 3, NoExchangeOrder: true}, &recall.Options{TopK: 2},
			`"rules":{"speakerWeight":1.5,"dateWeight":3}`},
		{"NoDates", recall.Tuning{NoDates: true}, &recall.Options{TopK: 2}, `"rules":{"exchangeOrder":true,"speakerWeight":2}`},
		{"AllOff", recall.Tuning{NoExchangeOrder: true, SessionWeight: -1, TopicWeight: -1, SpeakerWeight: -1, DateWeight: -1}, &recall.Options{TopK: 2}, `"rules":{}`},
		{"Vector", recall.Tuning{}, &recall.Options{TopK: 2, Mode: recall.ModeVector}, ""},
		{"Off", recall.Tuning{}, nil, ""},
	}
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				e, lc, opts := heronRun(t, be, c.tuning, c.recall)
				if c.want == "" {
					if strings.Contains(opts, `"rules"`) {
						t.Fatalf("stored options %s, want no rules", opts)
					}
				} else if !strings.Contains(opts, c.want) {
					t.Fatalf("stored options %s, want %s", opts, c.want)
				}
				rec, err := e.Journal().MemCtx(ctx, "run-1")
				if err != nil {
					t.Fatal(err)
				}
				if got, want := mustJSON(t, rec.Options.Rules), mustJSON(t, lc.MemCtx.Options.Rules); got != want {
					t.Errorf("decoded rules %s, returned %s", got, want)
				}
				if (rec.Options.Rules == nil) != (c.want == "") {
					t.Errorf("decoded rules %+v, want %s", rec.Options.Rules, c.want)
				}
				assertReplayIgnores(t, e, rec, lc.PromptHash,
					func(o *journal.Options) { o.Rules = nil },
					func(o *journal.Options) { o.Rules = &journal.Rules{SessionWeight: 9, DateWeight: 0.5} })
			})
		}
	})
}

// assertReplayIgnores replays rec's run as recorded, then with each of
// alts applied to its options (the record put again), and fails unless
// each replay rebuilds the run's prompt (hash) and the same messages:
// replay reads the recorded turns and does not search again.
func assertReplayIgnores(t *testing.T, e *engine.Engine, rec *journal.MemCtx, hash string, alts ...func(*journal.Options)) {
	t.Helper()
	ctx := context.Background()
	var want string
	for i, alt := range append([]func(*journal.Options){func(*journal.Options) {}}, alts...) {
		r := *rec
		alt(&r.Options)
		if err := e.Journal().PutMemCtx(ctx, &r, true); err != nil {
			t.Fatal(err)
		}
		rp, err := e.Replay(ctx, rec.RunID, engine.ReplayOptions{})
		if err != nil {
			t.Fatalf("replay with options %s: %v", mustJSON(t, r.Options), err)
		}
		if rp.Original.PromptHash != hash {
			t.Errorf("replay with options %s: hash %s, run's %s", mustJSON(t, r.Options), rp.Original.PromptHash, hash)
		}
		got := mustJSON(t, rp.Original.Messages) + mustJSON(t, rp.Original.System)
		if i == 0 {
			want = got
		} else if got != want {
			t.Errorf("replay with options %s: messages\n%s\nwant (as recorded)\n%s", mustJSON(t, r.Options), got, want)
		}
	}
}

// mustJSON is v's JSON text.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMemCtxRulesUnknown: a record written before the hybrid rules were
// recorded, of a hybrid run, decodes with none (journal.Options.Rules
// nil), which readers treat as unknown, never as the defaults; encoding it
// again adds none.
func TestMemCtxRulesUnknown(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "the heron nests"}}}); err != nil {
		t.Fatal(err)
	}
	w := 0.15
	old := &journal.MemCtx{RunID: "old-1", ThreadID: "t", ResourceID: "r",
		Options:  journal.Options{RecentN: 1, TopK: 5, Mode: "hybrid", Fusion: recall.FusionWeighted, FusionParams: &journal.FusionParams{VectorWeight: &w, Normalise: recall.NormStandardise}},
		Recalled: []journal.Ref{}, Recent: []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{}}
	if err := e.Journal().PutMemCtx(ctx, old, false); err != nil {
		t.Fatal(err)
	}
	rec, err := e.Journal().MemCtx(ctx, "old-1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Options.Rules != nil {
		t.Fatalf("a record without rules decodes as rules %+v", rec.Options.Rules)
	}
	raw, err := e.Journal().RawMemCtx(ctx, "old-1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"rules"`) {
		t.Fatalf("a record without rules stored %s", raw)
	}
}
