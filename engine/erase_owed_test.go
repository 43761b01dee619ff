package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestRepeatedErasureCompletesOwedPurge: an erasure whose context ends
// during its physical purge (a client that hung up on DELETE) leaves the
// erased text in the lexical index's segment files, its purge owed. Asking
// for the same erasure again erased nothing, so no purge ran, and the text
// stayed in the files until an unrelated erasure that removed something
// (or the next Open): the answer said nothing was left to do. Now the
// repeated erasure completes the owed purge (a thread's, which answers
// ErrThreadNotFound, too), and the text is in no file.
func TestRepeatedErasureCompletesOwedPurge(t *testing.T) {
	erasures := map[string]func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error){
		"DeleteResource": func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteResource(ctx, "victim")
		},
		"DeleteThread": func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
			res, err := e.DeleteThread(ctx, "t1")
			if errors.Is(err, engine.ErrThreadNotFound) {
				return &engine.EraseResult{}, nil // the second time: not found, and the owed purge completed
			}
			return res, err
		},
		"DeleteMessages": func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
			return e.DeleteMessages(ctx, "m1")
		},
	}
	for name, erase := range erasures {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			e := enginetest.MustOpen(t, engine.Config{})
			appendTo(t, e, "t1", "victim", user("m1", "victimmark quokkaferry leaves at ten"))
			appendTo(t, e, "t2", "other", user("m2", "the night train leaves at nine"))
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			cctx, cancel := context.WithCancel(ctx)
			var once sync.Once
			engine.SetBeforeIndexPurge(e, func() { once.Do(cancel) })
			if _, err := erase(cctx, e); !errors.Is(err, engine.ErrEraseIncomplete) {
				t.Fatalf("erasure cancelled in its purge: %v, want ErrEraseIncomplete", err)
			}
			engine.SetBeforeIndexPurge(e, nil)
			if hits := filesContaining(t, e.Dir(), "victimmark"); len(hits) == 0 {
				t.Fatal("the cancelled purge left no copy: the test no longer reproduces the owed purge")
			}
			res, err := erase(ctx, e)
			if err != nil {
				t.Fatalf("the repeated erasure: %v", err)
			}
			if len(res.Messages) != 0 {
				t.Errorf("the repeated erasure erased %v again", res.Messages)
			}
			if hits := filesContaining(t, e.Dir(), "victimmark"); len(hits) > 0 {
				t.Errorf("the erased text is still in %v after the repeated erasure", hits)
			}
		})
	}
}

// TestRepeatedErasureAwaitsPurgeUnderWay: the same erasure asked again
// while the first one's purge is under way answers when that purge has
// finished. It answered at once, nothing left to erase and nothing said
// of a purge, with the erased text still in the files (walk32: a repeated
// DELETE 1 ms after the first, the text in mnemo.db and a .zap file). The
// first purge's hook waits for the repeated erasure to return (at most a
// second), so without the wait the repeated one returns while the text is
// on disk.
func TestRepeatedErasureAwaitsPurgeUnderWay(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	appendTo(t, e, "t1", "victim", user("m1", "victimmark quokkaferry leaves at ten"))
	appendTo(t, e, "t2", "other", user("m2", "the night train leaves at nine"))
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	entered, repeated := make(chan struct{}), make(chan struct{})
	var once sync.Once
	engine.SetBeforeIndexPurge(e, func() {
		once.Do(func() {
			close(entered)
			select {
			case <-repeated:
			case <-time.After(time.Second):
			}
		})
	})
	first := make(chan error, 1)
	go func() {
		_, err := e.DeleteResource(ctx, "victim")
		first <- err
	}()
	<-entered
	res, err := e.DeleteResource(ctx, "victim")
	close(repeated)
	if err != nil || len(res.Messages) != 0 {
		t.Fatalf("the repeated erasure: %v, %v; want nothing erased again, no error", res, err)
	}
	if hits := filesContaining(t, e.Dir(), "victimmark"); len(hits) > 0 {
		t.Errorf("the repeated erasure answered with the erased text still in %v", hits)
	}
	if err := <-first; err != nil {
		t.Fatalf("the first erasure: %v", err)
	}
}
