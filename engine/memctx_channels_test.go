package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestMemCtxChannels: a run's memctx record names the tuning that shaped
// its channels' scores and candidates (options.channels: the pool, the
// turn-context rule's α and its turn after, the vector channel's exchange
// rule, BM25's constants, the date, answer-type and compound terms), as
// the engine's tuning resolved them, in every mode of recall: the stored
// bytes, the returned record and the decoded one agree; the lexical
// settings are absent in mode vector, the vector ones in mode lexical;
// none when recall was off. bleve's BM25, a knob of the SQLite index that
// Postgres ignores, is recorded on SQLite only. Replay rebuilds the run
// from the record's turns without searching again: the same record with
// its channel tuning taken out or changed replays the same prompt.
func TestMemCtxChannels(t *testing.T) {
	const lexical = `"k1":1.2,"b":0.75,"dates":true,"answerTypes":true,"compounds":true`
	cases := []struct {
		name     string
		tuning   recall.Tuning
		recall   *recall.Options
		want     string // the options' channels as stored, "" for none
		postgres string // want on Postgres, when it differs
	}{
		{"Default", recall.Tuning{}, &recall.Options{TopK: 2},
			`"channels":{"pool":100,"contextWeight":0.5,"turnAfter":true,"exchange":true,` + lexical + `}`, ""},
		{"Tuned", recall.Tuning{ContextWeight: 0.3, NoTurnAfter: true, NoExchange: true, NoDates: true, NoAnswerTypes: true, NoCompounds: true, CandidatePool: 40},
			&recall.Options{TopK: 2, Fusion: recall.FusionRRF}, `"channels":{"pool":40,"contextWeight":0.3,"k1":1.2,"b":0.75}`, ""},
		{"ContextOff", recall.Tuning{ContextWeight: -1}, &recall.Options{TopK: 2}, `"channels":{"pool":100,` + lexical + `}`, ""},
		{"TopKOverPool", recall.Tuning{CandidatePool: 3}, &recall.Options{TopK: 5, Mode: recall.ModeLexical},
			`"channels":{"pool":5,"contextWeight":0.5,"turnAfter":true,` + lexical + `}`, ""},
		{"Vector", recall.Tuning{}, &recall.Options{TopK: 2, Mode: recall.ModeVector}, `"channels":{"pool":100,"contextWeight":0.5,"turnAfter":true,"exchange":true}`, ""},
		{"BleveScores", recall.Tuning{BleveScores: true}, &recall.Options{TopK: 2, Mode: recall.ModeLexical},
			`"channels":{"pool":100,"contextWeight":0.5,"turnAfter":true,"bleveScores":true,"dates":true,"answerTypes":true,"compounds":true}`,
			`"channels":{"pool":100,"contextWeight":0.5,"turnAfter":true,` + lexical + `}`},
		{"Off", recall.Tuning{}, nil, "", ""},
	}
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				want := c.want
				if be.Name == "postgres" && c.postgres != "" {
					want = c.postgres
				}
				e, lc, opts := heronRun(t, be, c.tuning, c.recall)
				if want == "" {
					if strings.Contains(opts, `"channels"`) {
						t.Fatalf("stored options %s, want no channels", opts)
					}
				} else if !strings.Contains(opts, want) {
					t.Fatalf("stored options %s, want %s", opts, want)
				}
				rec, err := e.Journal().MemCtx(ctx, "run-1")
				if err != nil {
					t.Fatal(err)
				}
				if got, want := mustJSON(t, rec.Options.Channels), mustJSON(t, lc.MemCtx.Options.Channels); got != want {
					t.Errorf("decoded channels %s, returned %s", got, want)
				}
				if (rec.Options.Channels == nil) != (want == "") {
					t.Errorf("decoded channels %+v, want %s", rec.Options.Channels, want)
				}
				assertReplayIgnores(t, e, rec, lc.PromptHash,
					func(o *journal.Options) { o.Channels = nil },
					func(o *journal.Options) {
						o.Channels = &journal.Channels{Pool: 7, ContextWeight: 0.9, BleveScores: true}
					})
			})
		}
	})
}

// TestMemCtxChannelsUnknown: a record written before the channel tuning
// was recorded decodes with none (journal.Options.Channels nil), which
// readers treat as unknown, never as the defaults; encoding it again adds
// none.
func TestMemCtxChannelsUnknown(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "the heron nests"}}}); err != nil {
		t.Fatal(err)
	}
	old := &journal.MemCtx{RunID: "old-1", ThreadID: "t", ResourceID: "r",
		Options:  journal.Options{RecentN: 1, TopK: 5, Mode: "lexical"},
		Recalled: []journal.Ref{}, Recent: []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{}}
	if err := e.Journal().PutMemCtx(ctx, old, false); err != nil {
		t.Fatal(err)
	}
	rec, err := e.Journal().MemCtx(ctx, "old-1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Options.Channels != nil {
		t.Fatalf("a record without channels decodes as channels %+v", rec.Options.Channels)
	}
	raw, err := e.Journal().RawMemCtx(ctx, "old-1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"channels"`) {
		t.Fatalf("a record without channels stored %s", raw)
	}
}
