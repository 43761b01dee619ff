package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestMessagesPage: pages forward and backward cover the thread once, in
// order, and say where the next starts; a bad limit names it; an unknown
// thread is ErrThreadNotFound; thread pages stay within the resources asked.
func TestMessagesPage(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		msgs := make([]engine.Message, 25)
		for i := range msgs {
			msgs[i] = engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("turn %d", i+1)}
		}
		for _, th := range []string{"t1", "t2"} {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: "r-" + th, Messages: msgs}); err != nil {
				t.Fatal(err)
			}
		}
		var fwd, back []int64
		for req := (engine.PageRequest{Limit: 10}); ; {
			pg, err := e.MessagesPage(ctx, "t1", req)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range pg.Messages {
				fwd = append(fwd, m.Seq)
			}
			if pg.NextFromSeq == 0 {
				break
			}
			req.FromSeq = pg.NextFromSeq
		}
		for req := (engine.PageRequest{Limit: 10, BeforeSeq: 1 << 62}); ; {
			pg, err := e.MessagesPage(ctx, "t1", req)
			if err != nil {
				t.Fatal(err)
			}
			for i := len(pg.Messages) - 1; i >= 0; i-- {
				back = append(back, pg.Messages[i].Seq)
			}
			if pg.NextBeforeSeq == 0 {
				break
			}
			req.BeforeSeq = pg.NextBeforeSeq
		}
		if len(fwd) != 25 || fwd[0] != 1 || fwd[24] != 25 || len(back) != 25 || back[0] != 25 || back[24] != 1 {
			t.Fatalf("forward %v, backward %v", fwd, back)
		}
		if pg, err := e.MessagesPage(ctx, "t1", engine.PageRequest{BeforeSeq: 1}); err != nil || len(pg.Messages) != 0 || pg.NextBeforeSeq != 0 {
			t.Fatalf("beforeSeq 1 (nothing is older): %+v %v", pg, err)
		}
		if pg, err := e.MessagesPage(ctx, "t1", engine.PageRequest{BeforeSeq: 3, Limit: 5}); err != nil || len(pg.Messages) != 2 || pg.Messages[1].Seq != 2 || pg.NextBeforeSeq != 0 {
			t.Fatalf("beforeSeq 3: %+v %v", pg, err)
		}
		// BeforeSeq pages back within FromSeq (and ToSeq): the API's
		// ?fromSeq=S&beforeSeq=B (docs/serve.md).
		if pg, err := e.MessagesPage(ctx, "t1", engine.PageRequest{FromSeq: 10, BeforeSeq: 20, Limit: 5}); err != nil || len(pg.Messages) != 5 || pg.Messages[0].Seq != 15 || pg.NextBeforeSeq != 15 {
			t.Fatalf("fromSeq 10, beforeSeq 20: %+v %v", pg, err)
		}
		if pg, err := e.MessagesPage(ctx, "t1", engine.PageRequest{FromSeq: 10, BeforeSeq: 15, Limit: 5}); err != nil || len(pg.Messages) != 5 || pg.Messages[0].Seq != 10 || pg.NextBeforeSeq != 0 {
			t.Fatalf("fromSeq 10, beforeSeq 15 (the page reaches fromSeq): %+v %v", pg, err)
		}
		if pg, err := e.MessagesPage(ctx, "t1", engine.PageRequest{FromSeq: 5, ToSeq: 8, BeforeSeq: 100, Limit: 2}); err != nil || len(pg.Messages) != 2 || pg.Messages[1].Seq != 8 || pg.NextBeforeSeq != 7 {
			t.Fatalf("fromSeq 5, toSeq 8, beforeSeq 100: %+v %v", pg, err)
		}
		var ve *engine.ValidationError
		if _, err := e.MessagesPage(ctx, "t1", engine.PageRequest{Limit: engine.MaxPageLimit + 1}); !errors.As(err, &ve) || ve.Field != "limit" {
			t.Fatalf("limit over the maximum: %v", err)
		}
		if _, err := e.MessagesPage(ctx, "nope", engine.PageRequest{}); !errors.Is(err, engine.ErrThreadNotFound) {
			t.Fatalf("unknown thread: %v", err)
		}
		ts, more, err := e.ListThreadsPage(ctx, []string{"r-t2"}, 1, 0)
		if err != nil || len(ts) != 1 || ts[0].ID != "t2" || more {
			t.Fatalf("threads of r-t2: %v %v %v", ts, more, err)
		}
		if ts, more, err = e.ListThreadsPage(ctx, nil, 1, 0); err != nil || len(ts) != 1 || !more {
			t.Fatalf("first page of all: %v %v %v", ts, more, err)
		}
	})
}

// TestThreadsPage: pages by cursor give the threads of the resources asked
// (all when none) in ListThreads' order, once each, whatever the limit;
// a bad limit or cursor names it, and a cursor of a resource the listing
// does not hold is refused, not followed.
func TestThreadsPage(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		for i := range 23 {
			// Resources r0-r2, and creation times with ties (i%5).
			req := engine.AppendRequest{ThreadID: fmt.Sprintf("t%02d", 22-i), ResourceID: fmt.Sprintf("r%d", i%3),
				Messages: []engine.Message{{Role: engine.RoleUser, Content: "hello", CreatedAt: base.Add(time.Duration(i%5) * time.Minute)}}}
			if _, err := e.Append(ctx, req); err != nil {
				t.Fatal(err)
			}
		}
		all, err := e.ListThreads(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range [][]string{nil, {"r2", "r0"}, {"r1"}, {"r1", "nobody"}} {
			var want []string
			for _, th := range all {
				if len(res) == 0 || slices.Contains(res, th.ResourceID) {
					want = append(want, th.ID)
				}
			}
			for _, limit := range []int{1, 3, 7, 0} {
				var got []string
				req := engine.ThreadsRequest{Resources: res, Limit: limit}
				for pages := 0; ; pages++ {
					pg, err := e.ThreadsPage(ctx, req)
					if err != nil || pages > len(want) {
						t.Fatalf("%v limit %d: page %d: %v", res, limit, pages, err)
					}
					for _, th := range pg.Threads {
						got = append(got, th.ID)
					}
					if pg.NextCursor == "" {
						break
					}
					req.Cursor = pg.NextCursor
				}
				if !slices.Equal(got, want) {
					t.Errorf("%v limit %d: pages give %v, want %v", res, limit, got, want)
				}
			}
		}
		pg, err := e.ThreadsPage(ctx, engine.ThreadsRequest{Resources: []string{"r0"}, Limit: 2})
		if err != nil || pg.NextCursor == "" {
			t.Fatalf("first page of r0: %v %v", pg, err)
		}
		for name, req := range map[string]engine.ThreadsRequest{
			"limit":  {Limit: engine.MaxPageLimit + 1},
			"cursor": {Cursor: "not-a-cursor"},
			// r0's place, asked by a listing of r1 and r2: refused.
			"foreign": {Resources: []string{"r1", "r2"}, Cursor: pg.NextCursor},
		} {
			var ve *engine.ValidationError
			_, err := e.ThreadsPage(ctx, req)
			want := map[string]string{"limit": "limit", "cursor": "cursor", "foreign": "cursor"}[name]
			if !errors.As(err, &ve) || ve.Field != want {
				t.Errorf("%s: %v, want a *ValidationError naming %s", name, err, want)
			}
		}
	})
}
