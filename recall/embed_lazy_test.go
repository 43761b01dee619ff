package recall_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/recall"
)

// TestLazyEmbedder: ID and Dims answer without opening; concurrent first
// Embeds open once; a failed open is returned and tried again by the next
// use (not kept); an opened embedder of another shape is refused; a call
// waiting for another's open gives up when its context ends.
func TestLazyEmbedder(t *testing.T) {
	ctx := context.Background()
	var opens atomic.Int32
	fail := errors.New("not installed yet")
	release := make(chan struct{})
	emb := recall.NewLazy(recall.HashID, recall.HashDims, true, func() (recall.Embedder, error) {
		n := opens.Add(1)
		if n == 1 {
			return nil, fail
		}
		<-release
		return recall.HashEmbedder{}, nil
	})
	lazy := recall.Lazy(emb)
	if lazy == nil || emb.ID() != recall.HashID || emb.Dims() != recall.HashDims || lazy.Loaded() || opens.Load() != 0 {
		t.Fatalf("before use: %T id %s dims %d loaded %v opens %d", emb, emb.ID(), emb.Dims(), lazy.Loaded(), opens.Load())
	}
	if _, ok := emb.(recall.InProcess); !ok {
		t.Error("NewLazy(inProcess) is not recall.InProcess")
	}
	if _, err := emb.Embed(ctx, []string{"a"}); !errors.Is(err, fail) || lazy.Loaded() {
		t.Fatalf("first Embed: %v (loaded %v), want the open's error", err, lazy.Loaded())
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = emb.Embed(ctx, []string{"a"})
		}()
	}
	for opens.Load() < 2 { // until one of them is opening
		runtime.Gosched()
	}
	waiting, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := emb.Embed(waiting, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Embed waiting for another's open with its context cancelled: %v", err)
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent Embed %d: %v", i, err)
		}
	}
	if n := opens.Load(); n != 2 || !lazy.Loaded() {
		t.Fatalf("opens %d, loaded %v; want 2 (one failed, one for the concurrent calls) and loaded", n, lazy.Loaded())
	}
	if recall.Lazy(recall.HashEmbedder{}) != nil {
		t.Error("Lazy of a HashEmbedder is not nil")
	}
	other := recall.NewLazy("use-lite", 512, false, func() (recall.Embedder, error) { return recall.HashEmbedder{}, nil })
	if _, ok := other.(recall.InProcess); ok {
		t.Error("NewLazy(!inProcess) is recall.InProcess")
	}
	if _, err := other.Embed(ctx, []string{"a"}); !errors.Is(err, recall.ErrDimension) || recall.Lazy(other).Loaded() {
		t.Fatalf("open of another shape: %v, want ErrDimension and not loaded", err)
	}
}
