package recall_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// TestMaxLoaded checks the memory bound: with Tuning.MaxLoaded, searching
// many resources keeps at most the bound (plus the resource being loaded)
// in memory, unloading the least recently searched, and an unloaded
// resource answers exactly as before once it loads again.
func TestMaxLoaded(t *testing.T) {
	ctx := context.Background()
	cfg := synth.Config{Messages: 2000, Resources: 10, ThreadMessages: 40} // 200 messages each
	bounded, c := synthIndex(t, cfg, recall.Tuning{MaxLoaded: 450})
	free, _ := synthIndex(t, cfg, recall.Tuning{MaxLoaded: -1})
	ids := func(r *recall.Result) []string {
		var out []string
		for _, h := range r.Hits {
			out = append(out, h.MessageID)
		}
		return out
	}
	for round := range 2 {
		for r := range 10 {
			q := c.Query(r, 10)
			got, err := bounded.Search(ctx, recall.Query{Text: q.Text, ResourceID: q.ResourceID, Options: recall.Options{TopK: 5}})
			if err != nil {
				t.Fatal(err)
			}
			want, err := free.Search(ctx, recall.Query{Text: q.Text, ResourceID: q.ResourceID, Options: recall.Options{TopK: 5}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("round %d resource %d: bounded %v, unbounded %v", round, r, ids(got), ids(want))
			}
			res, msgs := bounded.Loaded()
			if msgs > 450+200 || res > 3 {
				t.Fatalf("round %d after resource %d: %d resources, %d messages loaded; want at most 3 and 650", round, r, res, msgs)
			}
			if r >= 2 && res < 2 {
				t.Fatalf("after resource %d: %d resources loaded, want the bound used", r, res)
			}
		}
	}
	// The least recently searched goes first: search 9 again, then load 0
	// and 1; 9 stays.
	for _, r := range []int{9, 0, 1} {
		q := c.Query(r, 10)
		if _, err := bounded.Search(ctx, recall.Query{Text: q.Text, ResourceID: q.ResourceID}); err != nil {
			t.Fatal(err)
		}
	}
	if v, m, err := bounded.VectorCount(ctx, synth.ResourceID(9)); err != nil || v != 200 || m != 200 {
		t.Fatalf("resource 9: %d vectors, %d messages, %v", v, m, err)
	}
	if _, msgs := free.Loaded(); msgs != 2000 {
		t.Errorf("unbounded index holds %d messages, want 2000", msgs)
	}
}

// TestMaxLoadedConcurrent searches many resources from several goroutines
// with a bound that forces unloading all the time (run it with -race).
func TestMaxLoadedConcurrent(t *testing.T) {
	ctx := context.Background()
	ix, c := synthIndex(t, synth.Config{Messages: 1600, Resources: 16, ThreadMessages: 30}, recall.Tuning{MaxLoaded: 250})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				q := c.Query(g*40+i, 16)
				r, err := ix.Search(ctx, recall.Query{Text: q.Text, ResourceID: q.ResourceID, Options: recall.Options{TopK: 3, MessageRange: recall.Range{Before: 1, After: 1}}})
				if err == nil && len(r.Hits) == 0 {
					err = context.Canceled // a search of a stored text found nothing
				}
				if err != nil {
					errs <- err
					return
				}
				if i%10 == 0 {
					if _, _, err := ix.VectorCount(ctx, q.ResourceID); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if res, msgs := ix.Loaded(); msgs > 250+100 || res > 3 {
		t.Fatalf("%d resources, %d messages loaded after the run; want at most 3 and 350", res, msgs)
	}
}
