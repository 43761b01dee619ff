package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDerivedVectorsMatchDrain: SQLite keeps no hash-384 vector
// (msgstore/derived.go); the vector a shard loads is computed from the
// stored message, and must be the one the drainer embedded from the
// message it indexed (a tool call, a named tool result cut to its
// summary, decomposed accents, an empty content). Checked against the
// embedding of the drainer's own text for every message, after a drain.
func TestDerivedVectorsMatchDrain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Limits: engine.Limits{ToolResultInlineBytes: 100}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	msgs := []engine.Message{
		{ID: "u1", Role: "user", Content: "Cafe\u0301 order for Zoë: 3 croissants", Name: "zoe"},
		{ID: "a1", Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c1", Name: "lookup_menu", Arguments: json.RawMessage(`{"item":"croissant","n":3}`)}}},
		{ID: "r1", Role: "tool", ToolCallID: "c1", Name: "lookup_menu", Content: strings.Repeat("croissant 2.50 EUR; ", 100)},
		{ID: "a2", Role: "assistant", Content: "Three croissants, 7.50 EUR."},
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "res", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	stored, err := e.MessagesByID(ctx, "res", "u1", "a1", "r1", "a2")
	if err != nil || len(stored) != 4 || !stored[2].Truncated {
		t.Fatalf("stored: %d messages, %v (truncated tool result: %v)", len(stored), err, len(stored) == 4 && stored[2].Truncated)
	}
	want := map[string][]float32{}
	for _, m := range stored {
		v, _ := recall.HashEmbedder{}.Embed(ctx, []string{engine.DocText(m)})
		want[m.ID] = v[0]
	}
	db, err := store.Open(ctx, filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := map[string][]float32{}
	if err := msgstore.New(db).ResourceVectors(ctx, "res", recall.HashID, func(id string, v []float32) error {
		got[id] = slices.Clone(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d vectors loaded, want %d", len(got), len(want))
	}
	for id, v := range want {
		if !slices.Equal(got[id], v) {
			t.Errorf("the vector of %s loaded from SQLite is not the one the drainer embedded", id)
		}
	}
}
