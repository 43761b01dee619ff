package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestAnswerBoundExact: Limits.MaxAnswerBytes bounds the text an answer
// carries, exactly. Messages whose text is exactly the bound are
// answered (a message without metadata counts no bytes for it, as the
// answer carries none: its stored "{}" counted 2 bytes, so 100 bytes of
// content failed a bound of 100), and one byte more is refused: a recent
// window that takes the whole bound leaves recall no byte (it had one, so
// a one-byte recalled turn passed the bound). On SQLite and Postgres.
func TestAnswerBoundExact(t *testing.T) {
	enginetest.ForEachBackend(t, answerBoundExact)
}

func answerBoundExact(t *testing.T, b enginetest.Backend) {
	ctx := context.Background()
	e := b.MustOpen(t, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 100, MaxContentBytes: 100}})
	appendTexts(t, e, "at", "s1", strings.Repeat("a", 60), strings.Repeat("b", 40))
	appendTexts(t, e, "over", "s2", strings.Repeat("a", 61), strings.Repeat("b", 40))
	appendTexts(t, e, "at", "s3", "k")
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	search := func(resource string) error {
		_, err := e.SearchMessages(ctx, engine.SearchRequest{ResourceID: resource, Query: strings.Repeat("a", 60) + " " + strings.Repeat("a", 61),
			Options: recall.Options{TopK: 1, Mode: recall.ModeLexical, MessageRange: recall.Range{After: 1}}})
		return err
	}
	load := func(opts *recall.Options) error {
		_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "s1", RecentN: 2, Query: "k", Recall: opts})
		return err
	}
	for _, tc := range []struct {
		name string
		run  func() error
		want string // a field the *AnswerTooLargeError names; "" for success
	}{
		{"SearchAtBound", func() error { return search("at") }, ""},
		{"SearchOver", func() error { return search("over") }, "recall.topK"},
		{"WindowAtBound", func() error { return load(nil) }, ""},
		{"WindowAtBoundRecallOver", func() error {
			return load(&recall.Options{TopK: 1, Mode: recall.ModeLexical, Scope: recall.ScopeResource})
		}, "recall.topK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err=%v, want none", err)
				}
				return
			}
			var at *engine.AnswerTooLargeError
			if !errors.Is(err, engine.ErrAnswerTooLarge) || !errors.As(err, &at) || !slices.Contains(at.Fields, tc.want) {
				t.Fatalf("err=%v, want an *AnswerTooLargeError naming %s", err, tc.want)
			}
		})
	}
}

// appendTexts appends contents to thread of resource, alternating user
// and assistant turns, with no metadata.
func appendTexts(t *testing.T, e *engine.Engine, resource, thread string, contents ...string) {
	t.Helper()
	var ms []engine.Message
	for i, c := range contents {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		ms = append(ms, engine.Message{Role: role, Content: c})
	}
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: resource, Messages: ms}); err != nil {
		t.Fatal(err)
	}
}

// TestAnswerBoundPairing: the calls and results that tool-call pairing
// brings into a context count against Limits.MaxAnswerBytes as the turns
// they pair do. Recalled tool results of a few bytes each pulled in their
// calls, assistant turns of 30 KB, unbounded: five of them read 150 KB
// under a bound of 100 KB (with topK 1000, 1000 turns of 256 KiB). A
// context whose pairs fit is composed.
func TestAnswerBoundPairing(t *testing.T) {
	enginetest.ForEachBackend(t, answerBoundPairing)
}

func answerBoundPairing(t *testing.T, b enginetest.Backend) {
	ctx := context.Background()
	e := b.MustOpen(t, engine.Config{Limits: engine.Limits{MaxAnswerBytes: 100_000, MaxContentBytes: 100_000}})
	var ms []engine.Message
	for i := range 5 {
		id := fmt.Sprintf("call_%d", i)
		ms = append(ms,
			engine.Message{Role: "assistant", Content: strings.Repeat("lantern ", 30_000/8), ToolCalls: []engine.ToolCall{{ID: id, Name: "lookup", Arguments: json.RawMessage(`{}`)}}},
			engine.Message{Role: "tool", Name: "lookup", ToolCallID: id, Content: fmt.Sprintf("harbour %d", i)})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "tools", ResourceID: "r", Messages: ms}); err != nil {
		t.Fatal(err)
	}
	appendTexts(t, e, "r", "chat", "where is the harbour")
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	load := func(topK int) error {
		_, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "chat", RecentN: 1, Query: "harbour",
			Recall: &recall.Options{TopK: topK, Mode: recall.ModeLexical, Scope: recall.ScopeResource}})
		return err
	}
	if err := load(2); err != nil {
		t.Fatalf("two recalled results with their calls (60 KB): %v", err)
	}
	err := load(5)
	var at *engine.AnswerTooLargeError
	if !errors.Is(err, engine.ErrAnswerTooLarge) || !errors.As(err, &at) || !slices.Contains(at.Fields, "recall.topK") {
		t.Fatalf("five recalled results with their calls (150 KB): err=%v, want an *AnswerTooLargeError naming recall.topK", err)
	}
}
