package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSearchPreviews: SearchPreviews writes each hit's preview from the
// first engine.PreviewPrefixChars characters of its message, byte for
// byte Preview of the whole message for ordinary ones (short, long,
// multibyte, several lines, tool calls short and long, two calls, many
// calls of long ids), with the hits, order and scores of SearchMessages
// and none of another resource; a message whose read part
// is mostly white space shows the words read and "…", cut after a whole
// character. On SQLite and Postgres.
func TestSearchPreviews(t *testing.T) { enginetest.ForEachBackend(t, searchPreviews) }

func searchPreviews(t *testing.T, b enginetest.Backend) {
	ctx := context.Background()
	e := b.MustOpen(t, engine.Config{})
	call := func(id, args string) engine.ToolCall {
		return engine.ToolCall{ID: id, Name: "lookup", Arguments: json.RawMessage(args)}
	}
	long := strings.Repeat("lantern ", 40_000/8)
	space := strings.Repeat(" ", engine.PreviewPrefixChars)
	ordinary := []engine.Message{
		{Role: "user", Content: "harbour short note"},
		{Role: "assistant", Content: "harbour " + long},
		{Role: "user", Content: "harbour " + strings.Repeat("日本語の文章、", 2000)},
		{Role: "assistant", Content: "harbour\n\n  line two\tthree\r\nfour"},
		{Role: "user", Content: "harbour " + strings.Repeat("😀 é ", 3000)},
		{Role: "assistant", Content: "harbour small call", ToolCalls: []engine.ToolCall{call("c1", `{"q":"harbour <b> & é"}`)}},
		{Role: "tool", Content: "harbour result", ToolCallID: "c1"},
		{Role: "assistant", Content: "harbour big call", ToolCalls: []engine.ToolCall{call("c2", `{"q":"`+long+`"}`)}},
		{Role: "tool", Content: "harbour result", ToolCallID: "c2"},
		{Role: "assistant", Content: "harbour two calls", ToolCalls: []engine.ToolCall{call("c3", `{"n":1}`), call("c4", `{"q":"`+long+`"}`)}},
		{Role: "tool", Content: "harbour result", ToolCallID: "c3"},
		{Role: "tool", Content: "harbour result", ToolCallID: "c4"},
	}
	// Calls of 128-character ids, one-character names and {} arguments
	// (they were 1, a number, refused since): 162 characters of each
	// stored call show in no preview. Eight (1,322 stored characters)
	// previewed as six and "…" when SearchPreviews read 1,024 characters
	// of tool calls; twenty are cut by the read and preview past 80 all
	// the same.
	for _, n := range []int{8, 20} {
		var calls []engine.ToolCall
		for i := range n {
			// The first character tells the two messages' ids apart: a
			// call id is made again only once answered (ErrCallOpen).
			calls = append(calls, engine.ToolCall{ID: fmt.Sprintf("%c%0127d", 'a'+n, i), Name: "f", Arguments: json.RawMessage(`{}`)})
		}
		ordinary = append(ordinary, engine.Message{Role: "assistant", Content: "harbour many calls", ToolCalls: calls})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ordinary}); err != nil {
		t.Fatal(err)
	}
	cut := []engine.Message{
		{Role: "user", Content: "harbour" + space[:len(space)-10] + "日本語の文章と言葉の海"},
		{Role: "assistant", Content: "harbour spaced call", ToolCalls: []engine.ToolCall{call("c5", `{"q":"harbour`+strings.Repeat(" ", engine.PreviewCallsChars)+`x"}`)}},
		{Role: "tool", Content: "harbour result", ToolCallID: "c5"},
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r", Messages: cut}); err != nil {
		t.Fatal(err)
	}
	// Another resource's message with the same words is no hit of r's.
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "v", ResourceID: "r2", Messages: []engine.Message{{Role: "user", Content: "harbour of r2"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	req := engine.SearchRequest{ResourceID: "r", Query: "harbour", Options: recall.Options{TopK: 100, Mode: recall.ModeLexical, MessageRange: recall.Range{After: 1}}}
	got, err := e.SearchPreviews(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := e.SearchMessages(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(got.Hits), len(whole.Hits); got != want || want != len(ordinary)+len(cut) {
		t.Fatalf("%d previews, %d messages; want %d", got, want, len(ordinary)+len(cut))
	}
	cutWant := map[string]string{
		"u/1": "harbour 日本語…", // 1,024 characters: "harbour", 1,014 spaces, 3 of 11 three-byte ones
		"u/2": `→ lookup({"q":"harbour…`,
	}
	for i, h := range got.Hits {
		w := whole.Hits[i]
		if h.MessageID != w.Message.ID || h.Reason != w.Reason || h.Rank != w.Rank || !sameScore(h.Score, w.Score) {
			t.Errorf("hit %d: %s %s rank %d, want %s %s rank %d", i, h.MessageID, h.Reason, h.Rank, w.Message.ID, w.Reason, w.Rank)
		}
		key := fmt.Sprintf("%s/%d", h.ThreadID, h.Seq)
		want := engine.Preview(w.Message)
		if c, ok := cutWant[key]; ok {
			want = c
		}
		if h.Preview != want {
			t.Errorf("%s preview:\n got %q\nwant %q", key, h.Preview, want)
		}
	}
}

// sameScore reports whether two optional scores are both absent or equal.
func sameScore(a, b *float64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
