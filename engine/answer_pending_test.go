package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// TestAnswerBoundPendingTurn: the pending turn (the user turns no answer
// follows yet), which the recent window holds whatever recentN, is read
// within Limits.MaxAnswerBytes: it was read whole and uncounted, so
// recentN 1 composed five turns of 600 bytes under a bound of 2000. Over
// it, the error names the pending turn's length and no field; within it,
// the window holds the whole turn. On SQLite and Postgres.
func TestAnswerBoundPendingTurn(t *testing.T) {
	enginetest.ForEachBackend(t, answerBoundPendingTurn)
}

func answerBoundPendingTurn(t *testing.T, b enginetest.Backend) {
	ctx := context.Background()
	e := b.MustOpen(t, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 2000, MaxContentBytes: 2000}})
	turn := func(thread string, n int) {
		ms := []engine.Message{{Role: engine.RoleUser, Content: "hello"}, {Role: engine.RoleAssistant, Content: "hi"}}
		for i := range n {
			ms = append(ms, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("part %d ", i) + strings.Repeat("p", 592)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: ms}); err != nil {
			t.Fatal(err)
		}
	}
	turn("over", 5)
	turn("within", 3)
	_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "over", RecentN: 1})
	var at *engine.AnswerTooLargeError
	if !errors.Is(err, engine.ErrAnswerTooLarge) || !errors.As(err, &at) || at.Pending != 5 || len(at.Fields) != 0 {
		t.Fatalf("a pending turn of 3000 bytes: err=%v (%+v), want an *AnswerTooLargeError of a pending turn of 5 messages", err, at)
	}
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "within", RecentN: 1})
	if err != nil {
		t.Fatalf("a pending turn of 1800 bytes: %v", err)
	}
	if got, want := len(c.Messages), 3; got != want {
		t.Fatalf("window of %d messages, want the pending turn's %d", got, want)
	}
}

// TestAnswerBoundLeftOut: the unobserved turns the window leaves out
// (ObserveConfig.MaxUnobservedTokens) are read for memctx's previews
// within what the context's reads left of Limits.MaxAnswerBytes: the
// newest 24 were read whole and uncounted (here 24 of 400 bytes, 9,600
// bytes under a bound of 3,000). The turns that fit are listed as dropped
// and droppedCount still counts them all. On SQLite and Postgres.
func TestAnswerBoundLeftOut(t *testing.T) {
	enginetest.ForEachBackend(t, answerBoundLeftOut)
}

func answerBoundLeftOut(t *testing.T, b enginetest.Backend) {
	ctx := context.Background()
	const size, bound = 400, 3000
	e := b.MustOpen(t, engine.Config{RecentN: 2, Limits: engine.Limits{MaxAnswerBytes: bound, MaxContentBytes: bound},
		Observe: &engine.ObserveConfig{Model: downModel(t), MaxUnobservedTokens: 250}})
	var texts []string
	for i := range 30 {
		texts = append(texts, fmt.Sprintf("turn %02d ", i)+strings.Repeat("z", size-8))
	}
	appendTexts(t, e, "r", "t", texts...)
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	rec := c.MemCtx
	listed := 0
	for _, d := range rec.Dropped {
		if d.Reason == journal.ReasonUnobserved {
			listed++
		}
	}
	window := len(c.Messages)
	if listed == 0 || window >= 30 {
		t.Fatalf("window %d, %d listed: the window was not cut", window, listed)
	}
	if (window+listed)*size > bound {
		t.Fatalf("window of %d and %d listed turns of %d bytes: %d bytes read, bound %d", window, listed, size, (window+listed)*size, bound)
	}
	if got, want := rec.RecentCount+rec.DroppedCount, 30; got != want {
		t.Fatalf("recentCount %d + droppedCount %d = %d, want %d", rec.RecentCount, rec.DroppedCount, got, want)
	}
}
