package engine_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestRerankMemCtx: with Config.Rerank the recall step of LoadContext
// sends the fused candidates to the re-ranker, and the memctx record says
// that the stage ran, with its status, candidates and latency; without it
// the record has no re-rank entry and nothing is sent. On both backends.
func TestRerankMemCtx(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.New(t)
	c := srv.Config()
	rr, err := recall.NewOpenAIReranker(recall.OpenAIRerankConfig{BaseURL: c.BaseURL, APIKey: openaitest.DefaultAPIKey, Model: "reranker-x", HTTPClient: c.HTTPClient.(*http.Client)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Open(ctx, engine.Config{Dir: t.TempDir(), Rerank: &recall.Rerank{}}); !errors.Is(err, engine.ErrInvalidInput) || !strings.Contains(err.Error(), "Rerank.Reranker") {
		t.Errorf("Open with a Rerank without a Reranker: %v, want ErrInvalidInput naming Rerank.Reranker", err)
	}
	if _, err := engine.Open(ctx, engine.Config{Dir: t.TempDir(), RecallTuning: recall.Tuning{SpeakerWeight: math.NaN()}}); !errors.Is(err, engine.ErrInvalidInput) || !strings.Contains(err.Error(), "speakerWeight") {
		t.Errorf("Open with a NaN speaker weight: %v, want ErrInvalidInput naming speakerWeight", err)
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		for _, tc := range []struct {
			name   string
			rerank *recall.Rerank
		}{{"off", nil}, {"on", &recall.Rerank{Reranker: rr, Depth: 4}}} {
			t.Run(tc.name, func(t *testing.T) {
				e := be.MustOpen(t, engine.Config{Rerank: tc.rerank})
				toolThread(t, e, "t1")
				if err := e.SyncIndexes(ctx); err != nil {
					t.Fatal(err)
				}
				before := srv.Count(openaitest.PathRerank)
				lc, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "other", ResourceID: "r", Query: "shipping quote for crate B", Recall: &recall.Options{TopK: 2}})
				if err != nil {
					t.Fatal(err)
				}
				sent := srv.Count(openaitest.PathRerank) - before
				got := lc.MemCtx.Retrieval.Rerank
				if tc.rerank == nil {
					if got != nil || sent != 0 {
						t.Fatalf("no re-rank configured: memctx rerank %+v, %d requests sent", got, sent)
					}
					return
				}
				if sent != 1 || got == nil || got.Reranker != "rerank:reranker-x" || got.Status != recall.RerankOK || got.Candidates != 4 || got.Millis <= 0 {
					t.Fatalf("memctx rerank %+v after %d requests; want ok from rerank:reranker-x over 4 candidates, with a latency", got, sent)
				}
				if n := len(lc.MemCtx.Recalled); n == 0 {
					t.Errorf("nothing recalled")
				}
			})
		}
	})
}
