package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestToolCallArgumentsDecoded: a tool call's arguments are indexed as
// their decoded text (recall.WithToolCalls), so words a client wrote as
// JSON escapes, as Python's json.dumps writes every non-ASCII character,
// are found: {"city":"Z\u00fcrich","note":"\u003cbilby\u003e"} by
// "Zürich" and by "bilby", and a string argument of a model's text by its
// words; after ingest and after a restart (the shard built from the
// stored rows). Before, the raw JSON was indexed ("z", "u00fcrich",
// "u003cbilby") and neither search found m1.
func TestToolCallArgumentsDecoded(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		cfg := be.Config(t, engine.Config{})
		e := enginetest.MustOpen(t, cfg)
		msgs := []engine.Message{
			{ID: "m0", Role: "user", Content: "what is the weather like there?"},
			{ID: "m1", Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "weather", Arguments: json.RawMessage(`{"city":"Z\u00fcrich","note":"\u003cbilby\u003e"}`)}}},
			{ID: "m2", Role: "tool", ToolCallID: "c1", Name: "weather", Content: "sunny, 21 degrees"},
			{ID: "m3", Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c2", Name: "note", Arguments: json.RawMessage(`"remember the quokka\u0027s burrow"`)}}},
			{ID: "m4", Role: "tool", ToolCallID: "c2", Name: "note", Content: "saved"},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		wantHits(t, e, "after ingest")
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		wantHits(t, enginetest.MustOpen(t, cfg), "after a restart")
	})
}

// wantHits checks that a lexical search finds m1 by "Zürich" and by
// "bilby", and m3 by "quokka".
func wantHits(t *testing.T, e *engine.Engine, when string) {
	t.Helper()
	for q, id := range map[string]string{"Zürich": "m1", "bilby": "m1", "quokka": "m3"} {
		res, err := e.Search(context.Background(), engine.SearchRequest{ResourceID: "r", Query: q, Options: recall.Options{TopK: 1, Mode: recall.ModeLexical}})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].MessageID != id {
			t.Errorf("%s: search %q: %v %+v; want the hit %s", when, q, err, res.Hits, id)
		}
	}
}
