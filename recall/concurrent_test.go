package recall_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// TestConcurrentChannels checks that a hybrid search over a large resource,
// whose channels run concurrently, returns exactly what the same search
// returns with the channels run one after the other: hits, scores and
// statuses, with and without a filter, an exclusion and the thread scope.
// Run it with -race.
func TestConcurrentChannels(t *testing.T) {
	ix, c := synthIndex(t, synth.Config{Messages: 6000, Resources: 1}, recall.Tuning{})
	var queries []recall.Query
	for i := range 40 {
		sq := c.Query(i, 1)
		q := recall.Query{Text: sq.Text, ResourceID: sq.ResourceID, ThreadID: sq.ThreadID,
			Options: recall.Options{TopK: 8, Mode: recall.ModeHybrid, MessageRange: recall.Range{Before: 1, After: 1}}}
		switch i % 4 {
		case 1:
			q.Exclude = map[string]bool{fmt.Sprintf("%s.%06d", sq.ThreadID, 1): true, fmt.Sprintf("%s.%06d", sq.ThreadID, 2): true}
		case 2:
			q.Options.Filter = []byte(`{"role":"user"}`)
		case 3:
			q.Options.Scope = recall.ScopeThread
		}
		queries = append(queries, q)
	}
	run := func(min int) []*recall.Result {
		recall.SetConcurrentMinForTest(t, min)
		var out []*recall.Result
		for _, q := range queries {
			res, err := ix.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		return out
	}
	sequential := run(math.MaxInt)
	concurrent := run(1000)
	for i := range queries {
		if !reflect.DeepEqual(sequential[i], concurrent[i]) {
			t.Fatalf("query %d %q: concurrent %+v, sequential %+v", i, queries[i].Text, concurrent[i], sequential[i])
		}
		if len(sequential[i].Hits) == 0 {
			t.Fatalf("query %d %q: no hits", i, queries[i].Text)
		}
	}
}

// TestParallelSearchesOneShard: searches of one large resource run from
// six goroutines at once answer exactly what each answers alone (hits,
// scores to the last bit, statuses), lexical and hybrid. They share the
// shard's lexical scratch (its slot, else the pool: scratchSlot), which
// a search of at least zeroAsyncMin scored messages zeroes on a
// goroutine of its own (lexScratch.release) that the next taker waits
// for; at 12,000 messages the own scores span three windows of
// wordScores. Run it with -race.
func TestParallelSearchesOneShard(t *testing.T) {
	ix, c := synthIndex(t, synth.Config{Messages: 12000, Resources: 1}, recall.Tuning{})
	var queries []recall.Query
	for i := range 24 {
		sq := c.Query(i, 1)
		// Three queries' words: most score more than zeroAsyncMin messages.
		text := sq.Text + " " + c.Query(i+7, 1).Text + " " + c.Query(i+14, 1).Text
		mode := []recall.Mode{recall.ModeLexical, recall.ModeHybrid}[i%2]
		queries = append(queries, recall.Query{Text: text, ResourceID: sq.ResourceID, ThreadID: sq.ThreadID,
			Options: recall.Options{TopK: 8, Mode: mode}})
	}
	alone := make([]*recall.Result, len(queries))
	for i, q := range queries {
		r, err := ix.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = r
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for k := range queries {
				i := (k + 4*g) % len(queries)
				r, err := ix.Search(context.Background(), queries[i])
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(r, alone[i]) {
					t.Errorf("query %d (%s) in parallel: %+v, alone %+v", i, queries[i].Options.Mode, r, alone[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestGoCatchPanics checks that a panic in the lexical goroutine is raised
// again in the goroutine that waits for it.
func TestGoCatchPanics(t *testing.T) {
	wait := recall.GoCatch(func() { panic("boom") })
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v, want boom", p)
		}
	}()
	wait()
	t.Fatal("wait returned")
}
