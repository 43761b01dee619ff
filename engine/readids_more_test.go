package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestReadsMalformedID: Replay (its run id and the turns it leaves out),
// FullContent and the thread listings refuse an id Append would refuse
// with a *ValidationError naming the field, as GetThread and MessagesByID
// do. Before, Replay answered journal.ErrNotFound ("run not found") or
// removed nothing (a turn of seq 0), FullContent ErrMessageNotFound, and
// the listings an empty page as for a resource with no thread.
func TestReadsMalformedID(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		seedOne(t, e)
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run1", ThreadID: "t1"}); err != nil {
			t.Fatal(err)
		}
		for name, id := range malformedIDs {
			t.Run(name, func(t *testing.T) {
				for _, c := range readsOfID(ctx, e, id) {
					if ve := validation(t, c.err); ve.Field != c.field {
						t.Errorf("%s(%q): field %q, want %q", c.name, id, ve.Field, c.field)
					}
				}
			})
		}
		for _, seq := range []int64{0, -1} {
			_, err := e.Replay(ctx, "run1", engine.ReplayOptions{WithoutTurns: []engine.TurnRef{{ThreadID: "t1", Seq: 1}, {ThreadID: "t1", Seq: seq}}})
			if ve := validation(t, err); ve.Field != "withoutTurns[1].seq" {
				t.Errorf("Replay without seq %d: field %q, want withoutTurns[1].seq", seq, ve.Field)
			}
		}
		wellFormed(ctx, t, e)
	})
}

// wellFormed checks that well-formed ids keep their answers: unknown ones
// are not found, a turn outside the run removes nothing.
func wellFormed(ctx context.Context, t *testing.T, e *engine.Engine) {
	t.Helper()
	if _, err := e.Replay(ctx, "run-unknown", engine.ReplayOptions{}); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("Replay(run-unknown) = %v, want journal.ErrNotFound", err)
	}
	if r, err := e.Replay(ctx, "run1", engine.ReplayOptions{WithoutTurns: []engine.TurnRef{{ThreadID: "t1", Seq: 99}}}); err != nil || len(r.Removed) != 0 {
		t.Errorf("Replay(run1 without t1:99) = %+v, %v; want nothing removed", r, err)
	}
	if _, err := e.FullContent(ctx, "m-unknown"); !errors.Is(err, engine.ErrMessageNotFound) {
		t.Errorf("FullContent(m-unknown) = %v, want ErrMessageNotFound", err)
	}
	if s, err := e.FullContent(ctx, "m1"); err != nil || s != "hello" {
		t.Errorf("FullContent(m1) = %q, %v", s, err)
	}
	if ts, err := e.ListThreads(ctx, "r-unknown"); err != nil || len(ts) != 0 {
		t.Errorf("ListThreads(r-unknown) = %v, %v; want none", ts, err)
	}
	if p, err := e.ThreadsPage(ctx, engine.ThreadsRequest{Resources: []string{"r"}}); err != nil || len(p.Threads) != 1 {
		t.Errorf("ThreadsPage(r) = %+v, %v; want t1", p, err)
	}
}

type idCall struct {
	name, field string
	err         error
}

// readsOfID calls each read with id where the read takes one.
func readsOfID(ctx context.Context, e *engine.Engine, id string) []idCall {
	_, replayErr := e.Replay(ctx, id, engine.ReplayOptions{})
	_, turnErr := e.Replay(ctx, "run1", engine.ReplayOptions{WithoutTurns: []engine.TurnRef{{ThreadID: id, Seq: 1}}})
	_, fullErr := e.FullContent(ctx, id)
	_, pageErr := e.ThreadsPage(ctx, engine.ThreadsRequest{Resources: []string{"r", id}})
	_, _, offsetErr := e.ListThreadsPage(ctx, []string{"r", id}, 10, 0)
	calls := []idCall{
		{"Replay", "runId", replayErr},
		{"Replay without", "withoutTurns[0].threadId", turnErr},
		{"FullContent", "messageId", fullErr},
		{"ThreadsPage", "resources[1]", pageErr},
		{"ListThreadsPage", "resources[1]", offsetErr},
	}
	if id == "" {
		return calls // "" lists every resource's threads
	}
	_, listErr := e.ListThreads(ctx, id)
	called := false
	eachErr := e.EachThread(ctx, id, func(engine.Thread) error { called = true; return nil })
	if called {
		eachErr = errors.New("fn called")
	}
	return append(calls, idCall{"ListThreads", "resourceId", listErr}, idCall{"EachThread", "resourceId", eachErr})
}
