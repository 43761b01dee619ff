package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestSyncIndexesHonoursContext: SyncIndexes (which Check and every CLI
// command that waits for the indexes run) waited on the drain lock
// without its context, so while the background drainer embedded a batch
// (seconds with use-lite on a loaded machine) Ctrl-C on `mnemo check`
// did nothing until the CLI's forced exit. Now the wait ends with the
// context; so does Reindex's.
func TestSyncIndexesHonoursContext(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		e := be.MustOpen(t, engine.Config{})
		appendUser(t, e, "t", "r", "hello")
		release := e.HoldDrain()
		for name, op := range map[string]func(context.Context) error{
			"SyncIndexes": e.SyncIndexes,
			"Check":       e.Check,
			"Reindex":     func(ctx context.Context) error { return e.Reindex(ctx, false) },
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			done := make(chan error, 1)
			go func() { done <- op(ctx) }()
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%s with the drain held: %v, want the context's error", name, err)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("%s still waits for the drain lock 10 s after its context ended", name)
			}
			cancel()
		}
		release()
		if err := e.SyncIndexes(context.Background()); err != nil {
			t.Fatalf("after the release: %v", err)
		}
	})
}
