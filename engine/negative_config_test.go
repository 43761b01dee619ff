package engine_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// TestOpenRefusesNegativeSizes: a negative Config.RecentN, Limits field,
// quota bound or retention bound is a *ValidationError naming it, and
// nothing is created; Open read each as its default (RecentN -1, which
// turns a LoadRequest's window off, gave a window of 10; a negative bound
// was no bound). Zero still means the default.
func TestOpenRefusesNegativeSizes(t *testing.T) {
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
