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

// TestMemCtxFusion: a run's memctx record names the fusion that scored its
// recalled hits in hybrid mode and its parameters (the weighted fusion's
// vector weight and normalisation, rrf's k), in the stored bytes as in the
// returned record, so a reader can say what the scores are; no fusion
// when recall was off or ran one channel. Replay rebuilds the run from
// the record without searching again, so the fusion does not change it.
func TestMemCtxFusion(t *testing.T) {
	cases := []struct {
		name   string
		tuning recall.Tuning
		recall *recall.Options
		want   string // the options' fusion members as stored, "" for none
	}{
		{"Default", recall.Tuning{}, &recall.Options{TopK: 2}, `"fusion":"weighted","fusionParams":{"vectorWeight":0.15,"normalise":"standardise"}`},
		{"RRF", recall.Tuning{}, &recall.Options{TopK: 2, Fusion: recall.FusionRRF}, `"fusion":"rrf","fusionParams":{"k":60}`},
		{"MaxNorm", recall.Tuning{MaxNorm: true, VectorWeight: 0.3}, &recall.Options{TopK: 2, Fusion: recall.FusionWeighted}, `"fusion":"weighted","fusionParams":{"vectorWeight":0.3,"normalise":"max"}`},
		{"Lexical", recall.Tuning{}, &recall.Options{TopK: 2, Mode: recall.ModeLexical, Fusion: recall.FusionRRF}, ""},
		{"Off", recall.Tuning{}, nil, ""},
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				e, lc, opts := heronRun(t, be, c.tuning, c.recall)
				if c.want == "" {
					if strings.Contains(opts, "fusion") {
						t.Fatalf("stored options %s, want no fusion", opts)
					}
				} else if !strings.Contains(opts, c.want) {
					t.Fatalf("stored options %s, want %s", opts, c.want)
				}
				rec, err := e.Journal().MemCtx(ctx, "run-1")
				if err != nil {
					t.Fatal(err)
				}
				if got, want := rec.Options.Fusion, lc.MemCtx.Options.Fusion; got != want {
					t.Errorf("stored fusion %q, returned %q", got, want)
				}
				rp, err := e.Replay(ctx, "run-1", engine.ReplayOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if rp.Original.PromptHash != lc.PromptHash {
					t.Errorf("replay hash %s, run's %s", rp.Original.PromptHash, lc.PromptHash)
				}
			})
		}
	})
}

// TestMemCtxFusionUnknown: a record written before the fusion was recorded
// decodes with none (journal.Options.Fusion "", FusionParams nil), which
// readers treat as unknown; encoding it again adds no fusion.
func TestMemCtxFusionUnknown(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "the heron nests"}}}); err != nil {
		t.Fatal(err)
	}
	old := &journal.MemCtx{RunID: "old-1", ThreadID: "t", ResourceID: "r", Options: journal.Options{RecentN: 1, TopK: 5, Mode: "hybrid"},
		Recalled: []journal.Ref{}, Recent: []journal.Ref{}, Dropped: []journal.Ref{}, Observations: []journal.ObservationRef{}}
	if err := e.Journal().PutMemCtx(ctx, old, false); err != nil {
		t.Fatal(err)
	}
	rec, err := e.Journal().MemCtx(ctx, "old-1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Options.Fusion != "" || rec.Options.FusionParams != nil {
		t.Fatalf("a record without a fusion decodes as fusion %q %+v", rec.Options.Fusion, rec.Options.FusionParams)
	}
	raw, err := e.Journal().RawMemCtx(ctx, "old-1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "fusion") {
		t.Fatalf("a record without a fusion stored %s", raw)
	}
}

// heronRun opens an engine of backend be with tuning, stores four turns of
// thread "t" (two about a heron), syncs the indexes and runs LoadContext
// "run-1" (query "heron", recent 1, recall opts; nil: none). It returns the
// engine, the run's context and the "options" member of its memctx record
// as stored (through the "recalled" key), for the tests of what a record
// says about the recall that ran.
func heronRun(t *testing.T, be enginetest.Backend, tuning recall.Tuning, opts *recall.Options) (*engine.Engine, *engine.Context, string) {
	t.Helper()
	ctx := context.Background()
	e := be.MustOpen(t, engine.Config{RecallTuning: tuning})
	var msgs []engine.Message
	for _, s := range []string{"the heron nests by the mill pond", "we painted the shed green", "the heron came back at dawn", "lunch was soup"} {
		msgs = append(msgs, engine.Message{Role: engine.RoleUser, Content: s})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	lc, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", RecentN: 1, Query: "heron", Recall: opts})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := e.Journal().RawMemCtx(ctx, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	return e, lc, s[strings.Index(s, `"options":`):strings.Index(s, `"recalled":`)]
}
