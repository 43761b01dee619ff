package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// TestOpenRefusesNegativeSizes: a negative Config.RecentN, Limits field,
// quota bound, retention bound, Lifecycle.IdleTTL, EraseWait,
// Rerank.Depth, ObserveConfig count or CallTimeout (and an unknown
// ObserveConfig.Scope), and a Config.Recall or Config.WorkingMemory their
// own validators refuse, is a *ValidationError naming it, and nothing is
// created; Open read each as its default (RecentN -1, which turns a
// LoadRequest's window off, gave a window of 10; CallTimeout -1s the 2
// minutes) or as no bound (a quota, retention or lifetime), or the
// observer refused it at its first use naming no field (a threshold).
// Zero still means the default.
func TestOpenRefusesNegativeSizes(t *testing.T) {
	// Never called: Open refuses the config first.
	rr, err := recall.NewOpenAIReranker(recall.OpenAIRerankConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for field, cfg := range map[string]engine.Config{
		"RecentN":                      {RecentN: -1},
		"Limits.MaxContentBytes":       {Limits: engine.Limits{MaxContentBytes: -1}},
		"Limits.MaxToolResultBytes":    {Limits: engine.Limits{MaxToolResultBytes: -1}},
		"Limits.ToolResultInlineBytes": {Limits: engine.Limits{ToolResultInlineBytes: -1}},
		"Limits.MaxMetadataBytes":      {Limits: engine.Limits{MaxMetadataBytes: -1}},
		"Limits.MaxMetadataDepth":      {Limits: engine.Limits{MaxMetadataDepth: -1}},
		"Limits.MaxMessagesPerAppend":  {Limits: engine.Limits{MaxMessagesPerAppend: -1}},
		"Limits.MaxToolCalls":          {Limits: engine.Limits{MaxToolCalls: -1}},
		"Limits.MaxQueryBytes":         {Limits: engine.Limits{MaxQueryBytes: -1}},
		"Limits.MaxAnswerBytes":        {Limits: engine.Limits{MaxAnswerBytes: -1}},
		// Read as no bound at all, as 0 is.
		"Lifecycle.Quota.ResourceMessages": {Lifecycle: engine.Lifecycle{Quota: engine.Quota{ResourceMessages: -1}}},
		"Lifecycle.Quota.ResourceBytes":    {Lifecycle: engine.Lifecycle{Quota: engine.Quota{ResourceBytes: -1}}},
		"Lifecycle.Quota.StoreMessages":    {Lifecycle: engine.Lifecycle{Quota: engine.Quota{StoreMessages: -1}}},
		"Lifecycle.Quota.StoreBytes":       {Lifecycle: engine.Lifecycle{Quota: engine.Quota{StoreBytes: -1}}},
		"Retention.KeepRuns":               {Retention: journal.Retention{KeepRuns: -1}},
		"Retention.MaxAge":                 {Retention: journal.Retention{MaxAge: -time.Hour}},
		// Read as no lifetime, as the default wait, as the query's TopK.
		"Lifecycle.IdleTTL": {Lifecycle: engine.Lifecycle{IdleTTL: -time.Hour}},
		"EraseWait":         {EraseWait: -time.Second},
		"Rerank.Depth":      {Rerank: &recall.Rerank{Reranker: rr, Depth: -1}},
		// Read as the default (MaxRounds, CallTimeout), or refused at the
		// observer's first use naming no field (the thresholds, Scope).
		"Observe.Threshold":        {Observe: &engine.ObserveConfig{Threshold: -1}},
		"Observe.ChunkTokens":      {Observe: &engine.ObserveConfig{ChunkTokens: -1}},
		"Observe.ReflectThreshold": {Observe: &engine.ObserveConfig{ReflectThreshold: -1}},
		"Observe.MaxRounds":        {Observe: &engine.ObserveConfig{MaxRounds: -1}},
		"Observe.CallTimeout":      {Observe: &engine.ObserveConfig{CallTimeout: -time.Second}},
		"Observe.MaxAnswerTokens":  {Observe: &engine.ObserveConfig{MaxAnswerTokens: -1}},
		"Observe.Scope":            {Observe: &engine.ObserveConfig{Scope: "global"}},
		// Taken, and then every LoadContext failed naming recall.<field>
		// as if the request had given it, or working memory's config
		// (every HandleToolCall too).
		"Recall.TopK":         {Recall: &recall.Options{TopK: -3}},
		"Recall.Scope":        {Recall: &recall.Options{Scope: "bogus"}},
		"Recall.Mode":         {Recall: &recall.Options{Mode: "bogus"}},
		"Recall.MessageRange": {Recall: &recall.Options{MessageRange: recall.Range{Before: -1}}},
		"Recall.Filter":       {Recall: &recall.Options{Filter: json.RawMessage(`{"role":`)}},
		"Recall.Threshold":    {Recall: &recall.Options{Threshold: 5}},
		"Recall.Fusion":       {Recall: &recall.Options{Fusion: "bogus"}},
		"WorkingMemory":       {WorkingMemory: &working.Config{Scope: "bogus"}},
	} {
		t.Run(field, func(t *testing.T) {
			cfg.Dir = t.TempDir() + "/data"
			e, err := engine.Open(context.Background(), cfg)
			if err == nil {
				e.Close()
			}
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || ve.Field != field || !errors.Is(err, engine.ErrInvalidInput) {
				t.Fatalf("Open: %v, want a *ValidationError on %s", err, field)
			}
			if _, err := os.Stat(cfg.Dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the data directory: %v, want none created", err)
			}
		})
	}
	e, err := engine.Open(context.Background(), engine.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("Open with zero sizes: %v", err)
	}
	e.Close()
}

// TestLoadContextRefusesNegativeTokenBudget: a negative
// LoadRequest.TokenBudget is a *ValidationError on tokenBudget and
// nothing is recorded; it was taken silently as no budget, where the
// server and the CLI refuse it. Zero is still no budget.
func TestLoadContextRefusesNegativeTokenBudget(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", ResourceID: "r", RunID: "run1", TokenBudget: -5})
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || ve.Field != "tokenBudget" || !errors.Is(err, engine.ErrInvalidInput) {
		t.Fatalf("LoadContext: %v, want a *ValidationError on tokenBudget", err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", ResourceID: "r", RunID: "run1"}); err != nil {
		t.Fatalf("the same run id after the refusal (none recorded), no budget: %v", err)
	}
}
