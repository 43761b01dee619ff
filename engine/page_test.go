package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
