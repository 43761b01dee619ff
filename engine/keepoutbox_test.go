package engine_test

import (
	"context"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// TestKeepOutbox: an engine opened with Config.KeepOutbox (a read-only
// command: mnemo threads, export…) leaves the outbox rows as they are. On
// a use-lite directory whose weights are not installed, reads opened with
// LazyEmbedder and KeepOutbox do not put the owed embeddings off (before,
// each such open's drainer tried them and deferred them, attempts+1, up to
// 5 minutes), so the next open with the embedder embeds them at once: its
// SyncIndexes leaves no row.
func TestKeepOutbox(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		st := be.NewStore(t)
		fake := paddedEmbedder{id: uselite.ID, dims: uselite.Dims}
		e, err := engine.Open(ctx, st.Config(engine.Config{Embedder: fake, KeepOutbox: true}))
		if err != nil {
			t.Fatal(err)
		}
		toolThread(t, e, "t1") // 6 messages, 6 outbox rows
		e.Close()

		t.Setenv(models.EnvDir, t.TempDir()) // use-lite not installed
		for range 3 {
			e, err := engine.Open(ctx, st.Config(engine.Config{LazyEmbedder: true, KeepOutbox: true}))
			if err != nil {
				t.Fatal(err)
			}
			if th, err := e.ListThreads(ctx, "r"); err != nil || len(th) != 1 {
				t.Fatalf("ListThreads: %v, %v", th, err)
			}
			if s, err := e.Stats(ctx); err != nil || s.OutboxPending != 6 {
				t.Fatalf("a read: %d outbox rows pending (%v), want 6", s.OutboxPending, err)
			}
			e.Close()
		}

		e, err = engine.Open(ctx, st.Config(engine.Config{Embedder: fake}))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		if s, err := e.Stats(ctx); err != nil || s.OutboxPending != 0 {
			t.Fatalf("after the reads, an open with the embedder and SyncIndexes: %d outbox rows pending (%v), want 0: the reads put them off", s.OutboxPending, err)
		}
	})
}
