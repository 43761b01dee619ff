package engine_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// loadDuration is how long TestLoad runs (issue 7, "Load"); run it longer
// with -load.duration=1m, and under -race.
var loadDuration = flag.Duration("load.duration", 3*time.Second, "duration of TestLoad")

// TestLoad runs 16 goroutines on one engine: 12 append to four shared
// threads of one resource (contended seq assignment), search it and load
// contexts with recall; one erases its own messages now and then (index
// purges under load). At the end: no error, every acknowledged message is
// stored (unless erased), the seqs one goroutine got in a thread increase
// in its own order, and Check passes (gap-free seqs, both indexes match).
func TestLoad(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		if testing.Short() {
			t.Skip("-short")
		}
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		const workers = 16
		type acked struct {
			id     string
			thread string
			seq    int64
		}
		var (
			mu         sync.Mutex
			appends    = map[int][]acked{}
			erased     = map[string]bool{}
			ops        [4]atomic.Int64 // append, search, context, erase
			eraseNs    atomic.Int64    // slowest erasure
			incomplete atomic.Int64    // erasures whose physical purge was deferred
		)
		deadline := time.Now().Add(*loadDuration)
		errc := make(chan error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 42))
				var mine []acked
				defer func() {
					mu.Lock()
					appends[w] = mine
					mu.Unlock()
				}()
				for i := 0; time.Now().Before(deadline); i++ {
					thread := fmt.Sprintf("t%d", rng.IntN(4))
					var err error
					switch p := rng.IntN(10); {
					case w == 15: // the eraser: append to its thread, erase some of it
						id := fmt.Sprintf("w%d-%d", w, i)
						_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "eraser", ResourceID: "r", Messages: []engine.Message{user(id, "eraser says "+loadWords(rng))}})
						if err == nil && i%3 == 2 {
							var res *engine.EraseResult
							start := time.Now()
							res, err = e.DeleteMessages(ctx, id)
							if d := int64(time.Since(start)); d > eraseNs.Load() {
								eraseNs.Store(d)
							}
							if errors.Is(err, engine.ErrEraseIncomplete) {
								// Committed and unreadable; the physical purge
								// waits for searchers holding old segments and
								// is finished later (at the latest by Open).
								incomplete.Add(1)
								mu.Lock()
								erased[id] = true
								mu.Unlock()
								ops[3].Add(1)
								err = nil
								continue
							}
							if err == nil {
								mu.Lock()
								erased[id] = true
								mu.Unlock()
								if len(res.Messages) != 1 {
									err = fmt.Errorf("erasure of %s removed %v", id, res.Messages)
								}
								ops[3].Add(1)
							}
						}
					case p < 5:
						n := 1 + rng.IntN(3)
						msgs := make([]engine.Message, n)
						for k := range msgs {
							msgs[k] = user(fmt.Sprintf("w%d-%d-%d", w, i, k), loadWords(rng))
						}
						var res *engine.AppendResult
						res, err = e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: msgs})
						if err == nil {
							for k := range msgs {
								mine = append(mine, acked{msgs[k].ID, thread, res.Seqs[k]})
							}
							ops[0].Add(1)
						}
					case p < 7:
						_, err = e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: loadWords(rng), Options: recall.Options{TopK: 5}})
						ops[1].Add(1)
					default:
						_, err = e.LoadContext(ctx, engine.LoadRequest{RunID: fmt.Sprintf("w%d-run%d", w, i), ThreadID: thread, ResourceID: "r",
							RecentN: 6, Recall: &recall.Options{TopK: 4, MessageRange: recall.Range{Before: 1, After: 1}}})
						ops[2].Add(1)
					}
					if err != nil {
						errc <- fmt.Errorf("worker %d op %d: %w", w, i, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errc)
		var errs []error
		for err := range errc {
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for w, list := range appends {
			last := map[string]int64{}
			ids := make([]string, 0, len(list))
			for _, a := range list {
				if a.seq <= last[a.thread] {
					t.Fatalf("worker %d: %s got seq %d in %s after seq %d", w, a.id, a.seq, a.thread, last[a.thread])
				}
				last[a.thread] = a.seq
				ids = append(ids, a.id)
			}
			got, err := e.MessagesByID(ctx, "r", ids...)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(ids) {
				t.Fatalf("worker %d: %d of %d acknowledged messages stored", w, len(got), len(ids))
			}
			for i, m := range got {
				if m.Seq != list[i].seq || m.ThreadID != list[i].thread {
					t.Fatalf("worker %d: %s stored as %s #%d, acknowledged %s #%d", w, m.ID, m.ThreadID, m.Seq, list[i].thread, list[i].seq)
				}
			}
		}
		for id := range erased {
			if ms, _ := e.MessagesByID(ctx, "", id); len(ms) != 0 {
				t.Fatalf("erased %s is stored", id)
			}
		}
		mustCheck(t, e)
		t.Logf("%s, %d goroutines: %d appends, %d searches, %d contexts, %d erasures (%d with the purge deferred; slowest %s)", *loadDuration, workers,
			ops[0].Load(), ops[1].Load(), ops[2].Load(), ops[3].Load(), incomplete.Load(), time.Duration(eraseNs.Load()).Round(time.Millisecond))
	})
}

var loadVocab = []string{"refund", "invoice", "garden", "tomato", "lisbon", "train", "deploy", "bug", "cache", "pin", "meeting", "friday", "budget", "cat", "river"}

func loadWords(rng *rand.Rand) string {
	s := ""
	for i := range 4 + rng.IntN(6) {
		if i > 0 {
			s += " "
		}
		s += loadVocab[rng.IntN(len(loadVocab))]
	}
	return s
}
