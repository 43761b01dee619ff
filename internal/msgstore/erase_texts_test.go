package msgstore_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestErasedReadsNoText checks that the erasure's readers return the first
// msgstore.ErasedPrefix bytes of each erased text and no more (an erasure
// of a large resource held every text until it committed), the tool calls'
// ids without their arguments and the first msgstore.ErasedPrefix bytes of
// each call's arguments as stored (CallArgs) and of the metadata, and that ErasedTexts reads the whole texts
// a page at a time and stops when asked.
func TestErasedReadsNoText(t *testing.T) { forEachBackend(t, testErasedReadsNoText) }

func testErasedReadsNoText(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, _ := b.openStore(t)
	ids := seed(t, b, db, store.ChunkSize+2)
	long := strings.Repeat("é", 40) + strings.Repeat("x", 10_000) // 80 bytes of two-byte runes first
	conn := store.Bound(db)
	if _, err := conn.ExecContext(ctx, `UPDATE messages SET content = ? WHERE id = ?`, long, ids[1]); err != nil {
		t.Fatal(err)
	}
	longArgs := `{"q":"` + strings.Repeat(`an argument, \"quoted\". `, 10) + `"}`
	if _, err := conn.ExecContext(ctx, `UPDATE messages SET role = 'assistant', tool_calls = ? WHERE id = ?`,
		`[{"id":"c1","name":"lookup","arguments":{"q":"a secret argument"}},{"id":"c2","name":"f"},{"id":"c3","name":"g","arguments":`+longArgs+`}]`, ids[2]); err != nil {
		t.Fatal(err)
	}
	longMeta := `{"note":"` + strings.Repeat(`a user's note, \"quoted\" é. `, 10) + `"}`
	if _, err := conn.ExecContext(ctx, `UPDATE messages SET metadata = ? WHERE id = ?`, longMeta, ids[3]); err != nil {
		t.Fatal(err)
	}
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	byID, err := s.ErasedByID(ctx, tx, ids)
	if err != nil {
		t.Fatal(err)
	}
	_, ofThread, err := s.ErasedOfThread(ctx, tx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	_, ofResource, err := s.ErasedOfResource(ctx, tx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	for name, msgs := range map[string][]msgstore.Message{"ErasedByID": byID, "ErasedOfThread": ofThread, "ErasedOfResource": ofResource} {
		if got, want := len(msgs), len(ids); got != want {
			t.Fatalf("%s: %d messages, want %d", name, got, want)
		}
		if got, want := msgs[1].Content, long[:msgstore.ErasedPrefix]; got != want {
			t.Errorf("%s: content of %d bytes %q…, want its first %d bytes", name, len(got), got[:min(len(got), 80)], len(want))
		}
		if got, want := msgs[0].Content, "text "+ids[0]; got != want {
			t.Errorf("%s: short content %q, want %q", name, got, want)
		}
		if got, want := msgs[2].ToolCalls, `[{"id":"c1"},{"id":"c2"},{"id":"c3"}]`; got != want {
			t.Errorf("%s: tool calls %s, want %s (the ids only)", name, got, want)
		}
		// The arguments' first bytes as stored, escapes included, for the
		// residue check; a call without arguments has none.
		if got, want := msgs[2].CallArgs, []string{`{"q":"a secret argument"}`, longArgs[:msgstore.ErasedPrefix]}; !slices.Equal(got, want) {
			t.Errorf("%s: call arguments %q, want %q", name, got, want)
		}
		if got := msgs[0].CallArgs; got != nil {
			t.Errorf("%s: call arguments %q of a message without calls, want none", name, got)
		}
		// The metadata's first bytes as stored, escapes included (a cut
		// may end inside a UTF-8 sequence), for the residue check.
		if got, want := msgs[3].Metadata, longMeta[:msgstore.ErasedPrefix]; got != want {
			t.Errorf("%s: metadata %q, want %q", name, got, want)
		}
		if got, want := msgs[0].Metadata, "{}"; got != want {
			t.Errorf("%s: metadata %q of a message without any, want %q", name, got, want)
		}
	}

	var texts []string
	if err := s.ErasedTexts(ctx, tx, append(ids, "unknown"), func(c string) bool { texts = append(texts, c); return true }); err != nil {
		t.Fatal(err)
	}
	if got, want := len(texts), len(ids); got != want || !slices.Contains(texts, long) || !slices.Contains(texts, "text "+ids[store.ChunkSize+1]) {
		t.Fatalf("ErasedTexts: %d texts (the long one: %v), want %d, every one whole", got, slices.Contains(texts, long), want)
	}
	n := 0
	if err := s.ErasedTexts(ctx, tx, ids, func(string) bool { n++; return n < 3 }); err != nil || n != 3 {
		t.Fatalf("ErasedTexts stopped after %d texts (%v), want 3", n, err)
	}
}
