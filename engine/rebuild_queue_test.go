package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// rebuildFixture opens a SQLite engine whose lexical channel asks bleve
// (a new, empty index finds nothing there) with two messages of u1 and
// one of u2 indexed.
func rebuildFixture(t *testing.T) *engine.Engine {
	t.Helper()
	e := enginetest.MustOpen(t, engine.Config{RecallTuning: bleveTuning})
	appendUser(t, e, "t1", "u1", "the night train leaves at ten")
	appendUser(t, e, "t1", "u1", "my sister lives in Porto")
	appendUser(t, e, "t2", "u2", "the night bus is late")
	if err := e.SyncIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a := searchNightTrain(t, e); a.err != nil || a.res.Retrieval.Lexical != recall.StatusOK || lexicalHits(a.res) == 0 {
		t.Fatalf("before the rebuild: %s, want ok with hits", describeAnswer(a))
	}
	return e
}

// checkFound fails unless a search of "night train" in u1 reads lexical
// "ok" with hits and no note.
func checkFound(t *testing.T, e *engine.Engine, when string) {
	t.Helper()
	a := searchNightTrain(t, e)
	if a.err != nil || a.res.Retrieval.Lexical != recall.StatusOK || lexicalHits(a.res) == 0 || a.res.Retrieval.Note != "" {
		t.Errorf("%s: %s, want ok with hits and no note", when, describeAnswer(a))
	}
}

// searchWhileQueueing runs, at the rebuild queue hook, a lexical and a
// hybrid search of u1 when the index lock is free; it reports an error
// (and does not search, which would wait for the lock) when it is held.
func searchWhileQueueing(t *testing.T, e *engine.Engine) (got *[2]searchAnswer) {
	t.Helper()
	got = new([2]searchAnswer)
	engine.SetBeforeRebuildQueue(e, func() {
		if !engine.IndexLockFree(e) {
			t.Error("the index lock is held while the rebuild queues: searches wait for the queueing")
			return
		}
		got[0] = searchNightTrain(t, e)
		res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: "u1", Query: "night train",
			Options: recall.Options{Mode: recall.ModeHybrid, TopK: 3}})
		got[1] = searchAnswer{res, err}
	})
	t.Cleanup(func() { engine.SetBeforeRebuildQueue(e, nil) })
	return got
}

// checkCatchingUp fails unless both answers (lexical, hybrid) came and
// say every channel that ran is catching up, with u1's two messages
// counted, and notes containing note.
func checkCatchingUp(t *testing.T, when string, got *[2]searchAnswer, note string) {
	t.Helper()
	for i, a := range got {
		if a.res == nil && a.err == nil {
			t.Errorf("%s: search %d did not run", when, i)
			continue
		}
		if a.err != nil {
			t.Errorf("%s: search %d: %v", when, i, a.err)
			continue
		}
		r := a.res.Retrieval
		vector := recall.StatusOff
		if i == 1 {
			vector = recall.StatusCatchingUp
		}
		if r.Lexical != recall.StatusCatchingUp || r.Vector != vector {
			t.Errorf("%s: search %d: lexical %q, vector %q with %d lexical hits, want %q and %q: the index misses every message",
				when, i, r.Lexical, r.Vector, lexicalHits(a.res), recall.StatusCatchingUp, vector)
		}
		if want := "up to 2 messages of this resource not indexed yet"; !strings.Contains(r.Note, want) || !strings.Contains(r.Note, note) {
			t.Errorf("%s: search %d: note %q, want %q and %q", when, i, r.Note, want, note)
		}
	}
}

// TestSearchDuringReindexQueue: a search that starts while Reindex
// (SQLite) queues every message for the new, empty index runs at once
// (the index lock is free) and does not answer "ok" without the hits the
// index misses: both channels read "degraded: index catching up" and the
// note counts the resource's two messages. After Reindex it is "ok" with
// its hits. Before, Reindex queued under the index lock and searches
// waited for it (230-334 ms at 100,000 messages).
func TestSearchDuringReindexQueue(t *testing.T) {
	e := rebuildFixture(t)
	got := searchWhileQueueing(t, e)
	if err := e.Reindex(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	checkCatchingUp(t, "during Reindex's queueing", got, "")
	checkFound(t, e, "after Reindex")
}

// TestReindexQueueFails: a Reindex whose context ends before its queueing
// commits returns the context's error and leaves the new index missing
// every message with nothing queued; searches go on saying so (catching
// up, the note asks for Reindex again) instead of "ok" without hits, and
// the next Reindex rebuilds it.
func TestReindexQueueFails(t *testing.T) {
	e := rebuildFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	engine.SetBeforeRebuildQueue(e, cancel)
	if err := e.Reindex(ctx, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("Reindex cancelled before its queueing: %v, want context.Canceled", err)
	}
	engine.SetBeforeRebuildQueue(e, nil)
	var got [2]searchAnswer
	got[0] = searchNightTrain(t, e)
	res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: "u1", Query: "night train",
		Options: recall.Options{Mode: recall.ModeHybrid, TopK: 3}})
	got[1] = searchAnswer{res, err}
	checkCatchingUp(t, "after the failed queueing", &got, "Reindex stopped before it queued")
	if err := e.Reindex(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	checkFound(t, e, "after Reindex again")
}

// TestReindexResetFails: a Reindex (SQLite) whose context ends once the
// new, empty index is set, so that dropping the stored embeddings
// (reembed) or the outbox's rows fails, returns the error naming the step
// and leaves searches saying the index misses every message (catching up)
// with a note saying why and to run Reindex again, as a failed queueing
// does; the next Reindex rebuilds it. Before, the note was empty: searches
// read "degraded: index catching up" with no word of the failure.
func TestReindexResetFails(t *testing.T) {
	for _, c := range []struct {
		name    string
		reembed bool
		step    string
	}{
		{"DropEmbeddings", true, "engine: drop embeddings: "},
		{"ResetOutbox", false, "engine: reset outbox: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := rebuildFixture(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			engine.SetAfterReindexSwap(e, cancel)
			err := e.Reindex(ctx, c.reembed)
			engine.SetAfterReindexSwap(e, nil)
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), c.step) {
				t.Fatalf("Reindex cancelled after its swap: %v, want context.Canceled from %q", err, c.step)
			}
			var got [2]searchAnswer
			got[0] = searchNightTrain(t, e)
			res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: "u1", Query: "night train",
				Options: recall.Options{Mode: recall.ModeHybrid, TopK: 3}})
			got[1] = searchAnswer{res, err}
			checkCatchingUp(t, "after the failed "+c.name, &got, "Reindex stopped before it queued the messages for the new index ("+c.step)
			if err := e.Reindex(context.Background(), c.reembed); err != nil {
				t.Fatal(err)
			}
			checkFound(t, e, "after Reindex again")
		})
	}
}

// TestSearchDuringDamageRecoveryQueue: a search while the recovery of a
// damaged lexical index queues the rebuild (msgstore's ReplaceIndexQueue,
// after the index lock is released) reads both channels catching up with
// the recovery's note. Before, it counted only the index rows the damaged
// index had left (none: every message was indexed) and answered "ok"
// with no hit.
func TestSearchDuringDamageRecoveryQueue(t *testing.T) {
	e := rebuildFixture(t)
	got := searchWhileQueueing(t, e)
	markLexicalDamaged(t, e)
	if err := e.SyncIndexes(context.Background()); err != nil { // its drain recovers
		t.Fatal(err)
	}
	checkCatchingUp(t, "during the recovery's queueing", got, "lexical index was damaged")
	checkFound(t, e, "after the recovery")
}

// TestSearchDuringDamageRecovery: a search that took the recall index
// just before the damage recovery quarantined it finishes on it before
// the recovery closes it: it answers from the damaged index (its lexical
// channel over bleve "unavailable: … lexical index is corrupt …", the
// damage it met), and the recovery (here SyncIndexes's drain) waits for
// it, as Reindex does (TestSearchDuringReindex). A recovery that closed
// the index under the search made it answer "unavailable: recall: index
// is closed", and returned while the search was held.
func TestSearchDuringDamageRecovery(t *testing.T) {
	e := rebuildFixture(t)
	entered, release, answer := heldSearch(t, e)
	defer release()
	<-entered
	markLexicalDamaged(t, e)
	synced := make(chan error, 1)
	go func() { synced <- e.SyncIndexes(context.Background()) }()
	if err, early := gaveWithin(synced, 300*time.Millisecond); early {
		t.Errorf("the recovery's drain returned (%v) while a search held the damaged index", err)
		synced <- err
	}
	release()
	a := <-answer
	engine.SetBeforeIndexSearch(e, nil)
	if a.err != nil || !strings.Contains(a.res.Retrieval.Lexical, "lexical index is corrupt") {
		t.Errorf("search during the recovery: %s, want the damaged index's answer (lexical index is corrupt)", describeAnswer(a))
	}
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if q, err := filepath.Glob(filepath.Join(e.Dir(), engine.QuarantineDir, "*")); err != nil || len(q) != 1 {
		t.Errorf("quarantined: %v (%v), want one directory: the recovery did not run", q, err)
	}
}
