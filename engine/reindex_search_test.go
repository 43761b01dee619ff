package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// bleveTuning has the lexical channel ask bleve for its matches
// (Tuning.BleveMatches), as a shard whose postings overflow does: the
// channel that read the closed index.
var bleveTuning = recall.Tuning{BleveMatches: true}

// heldSearch starts a search of "night train" in u1 that stops, holding
// the index it took, until release is called; entered is closed when it
// got there. Its answer arrives on the returned channel.
func heldSearch(t *testing.T, e *engine.Engine) (entered <-chan struct{}, release func(), answer <-chan searchAnswer) {
	t.Helper()
	in, out := make(chan struct{}), make(chan struct{})
	var once sync.Once
	engine.SetBeforeIndexSearch(e, func() {
		once.Do(func() {
			close(in)
			<-out
		})
	})
	ans := make(chan searchAnswer, 1)
	go func() {
		res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: "u1", Query: "night train",
			Options: recall.Options{Mode: recall.ModeLexical, TopK: 3}})
		ans <- searchAnswer{res, err}
	}()
	return in, sync.OnceFunc(func() { close(out) }), ans
}

type searchAnswer struct {
	res *recall.Result
	err error
}

// lexicalHits is the number of lexical hits of res.
func lexicalHits(res *recall.Result) int {
	n := 0
	for _, h := range res.Hits {
		if h.Reason == recall.ReasonHit {
			n++
		}
	}
	return n
}

// TestSearchDuringReindex: a search that took the recall index just
// before Reindex (SQLite) finishes on it before Reindex closes it, and
// answers from it: its lexical channel "ok" with its hit. Before, Reindex
// closed the index under it and it answered "unavailable: recall: index
// is closed" with no hit (the lexical channel over bleve; hybrid with a
// failing embedder failed the search). Reindex waits for it: it has not
// returned while the search is held.
func TestSearchDuringReindex(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{RecallTuning: bleveTuning})
	appendUser(t, e, "t1", "u1", "the night train leaves at ten")
	appendUser(t, e, "t1", "u1", "my sister lives in Porto")
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	before := searchNightTrain(t, e)
	if before.err != nil || lexicalHits(before.res) == 0 {
		t.Fatalf("before Reindex: %s, want hits", describeAnswer(before))
	}
	entered, release, answer := heldSearch(t, e)
	defer release()
	<-entered
	reindexed := make(chan error, 1)
	go func() { reindexed <- e.Reindex(ctx, false) }()
	if err, early := gaveWithin(reindexed, 300*time.Millisecond); early {
		t.Errorf("Reindex returned (%v) while a search held the old index: it closed the index under the search", err)
		reindexed <- err
	}
	release()
	a := <-answer
	engine.SetBeforeIndexSearch(e, nil)
	if a.err != nil {
		t.Fatalf("search during Reindex: %v", a.err)
	}
	if a.res.Retrieval.Lexical != recall.StatusOK || lexicalHits(a.res) != lexicalHits(before.res) {
		t.Errorf("search during Reindex: %s, want ok with %d", describeAnswer(a), lexicalHits(before.res))
	}
	if err := <-reindexed; err != nil {
		t.Fatalf("Reindex: %v", err)
	}
}

// TestReindexGivesUpWaitingForSearch: Reindex waiting for a search of the
// old index gives up when its context ends, returning its error and
// leaving the index open: the search answers from it, and so do later
// ones.
func TestReindexGivesUpWaitingForSearch(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{RecallTuning: bleveTuning})
	appendUser(t, e, "t1", "u1", "the night train leaves at ten")
	if err := e.SyncIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	entered, release, answer := heldSearch(t, e)
	defer release()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := e.Reindex(ctx, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Reindex with a search held: %v, want DeadlineExceeded", err)
	}
	release()
	engine.SetBeforeIndexSearch(e, nil)
	for i, a := range []searchAnswer{<-answer, searchNightTrain(t, e)} {
		if a.err != nil || a.res.Retrieval.Lexical != recall.StatusOK || lexicalHits(a.res) != 1 {
			t.Errorf("search %d after Reindex gave up: %v, want lexical ok with 1 hit", i, describeAnswer(a))
		}
	}
}

// TestSearchDuringClose: a search that took the recall index before Close
// (SQLite) runs on it before Close closes it, and returns ErrClosed (as
// every call that Close overlaps may), never an answer of the closed
// index; Close waits for it. With a cancelled context Close waits for no
// search: the search still returns ErrClosed, and nothing panics.
func TestSearchDuringClose(t *testing.T) {
	for _, cancelled := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancelled=%v", cancelled), func(t *testing.T) {
			e := enginetest.MustOpen(t, engine.Config{RecallTuning: bleveTuning})
			appendUser(t, e, "t1", "u1", "the night train leaves at ten")
			if err := e.SyncIndexes(context.Background()); err != nil {
				t.Fatal(err)
			}
			entered, release, answer := heldSearch(t, e)
			defer release()
			<-entered
			ctx, cancel := context.WithCancel(context.Background())
			if cancelled {
				cancel()
			}
			defer cancel()
			closed := make(chan error, 1)
			go func() { closed <- e.CloseContext(ctx) }()
			if !cancelled {
				if err, early := gaveWithin(closed, 300*time.Millisecond); early {
					t.Errorf("Close returned (%v) while a search held the index", err)
					closed <- err
				}
			} else if err := <-closed; err != nil {
				t.Errorf("CloseContext(cancelled): %v", err)
			}
			release()
			if a := <-answer; !errors.Is(a.err, engine.ErrClosed) {
				t.Errorf("search overlapping Close: %s, want ErrClosed", describeAnswer(a))
			}
			if !cancelled {
				if err := <-closed; err != nil {
					t.Errorf("Close: %v", err)
				}
			}
		})
	}
}

// TestSearchesDuringReindexLoop: searches (lexical and hybrid, Search and
// LoadContext) in a loop on goroutines while Reindex runs again and again
// never fail and never find a channel "unavailable": during the rebuild
// they answer from the old index or from the new one catching up
// ("degraded: index catching up"). On Postgres, whose Reindex rewrites
// the rows in transactions, the same holds.
func TestSearchesDuringReindexLoop(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{RecallTuning: bleveTuning})
		for i := range 30 {
			appendUser(t, e, "t1", "u1", fmt.Sprintf("the night train number %d leaves at ten", i))
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		var n atomic.Int64
		bad := make(chan string, 8)
		report := func(what string) {
			select {
			case bad <- what:
			default:
			}
		}
		for g, mode := range []recall.Mode{recall.ModeLexical, recall.ModeHybrid, recall.ModeHybrid} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					n.Add(1)
					opts := recall.Options{Mode: mode, TopK: 3}
					if g == 2 {
						c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r", ReplaceRun: true, ThreadID: "t1",
							Query: "night train", RecentN: 1, Recall: &opts})
						if err != nil {
							report("LoadContext: " + err.Error())
						} else if r := c.MemCtx.Retrieval; unavailable(r.Lexical, r.Vector) {
							report(fmt.Sprintf("LoadContext: lexical %q, vector %q", r.Lexical, r.Vector))
						}
						continue
					}
					res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "night train", Options: opts})
					if err != nil {
						report(fmt.Sprintf("Search %s: %v", mode, err))
					} else if r := res.Retrieval; unavailable(r.Lexical, r.Vector) {
						report(fmt.Sprintf("Search %s: lexical %q, vector %q", mode, r.Lexical, r.Vector))
					}
				}
			}()
		}
		runs := 0
		for ; runs < 10 || (n.Load() < 100 && runs < 200); runs++ { // Postgres reindexes faster than it searches
			if err := e.Reindex(ctx, false); err != nil {
				t.Error(err)
			}
		}
		stop.Store(true)
		wg.Wait()
		close(bad)
		for what := range bad {
			t.Error(what)
		}
		t.Logf("%d searches during %d Reindex runs", n.Load(), runs)
	})
}

// gaveWithin returns what ch gives within d, and whether it gave it.
func gaveWithin(ch <-chan error, d time.Duration) (error, bool) {
	select {
	case err := <-ch:
		return err, true
	case <-time.After(d):
		return nil, false
	}
}

// unavailable reports whether a channel status says the channel failed.
func unavailable(statuses ...string) bool {
	for _, s := range statuses {
		if strings.HasPrefix(s, "unavailable") {
			return true
		}
	}
	return false
}

func searchNightTrain(t *testing.T, e *engine.Engine) searchAnswer {
	t.Helper()
	res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: "u1", Query: "night train",
		Options: recall.Options{Mode: recall.ModeLexical, TopK: 3}})
	return searchAnswer{res, err}
}

func describeAnswer(a searchAnswer) string {
	if a.err != nil {
		return a.err.Error()
	}
	return fmt.Sprintf("lexical %q with %d hits", a.res.Retrieval.Lexical, lexicalHits(a.res))
}
