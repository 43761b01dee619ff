package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// vectorGate is hash-384 under another id (so its vectors are stored,
// not derived from the stored text), whose Embed of a text holding "zebra"
// signals entered and waits for release.
type vectorGate struct {
	once     sync.Once
	entered  chan struct{}
	released chan struct{}
}

func (g *vectorGate) ID() string { return "gate-384" }
func (g *vectorGate) Dims() int  { return recall.HashDims }
func (g *vectorGate) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for _, s := range texts {
		if strings.Contains(s, "zebra") {
			g.once.Do(func() { close(g.entered) })
			select {
			case <-g.released:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	return recall.HashEmbedder{}.Embed(ctx, texts)
}

// xErasures erase message x of thread t: by its id (x stored again then
// takes the next seq), and with its thread (x stored again takes the same
// thread and seq: an import run again).
var xErasures = []struct {
	name  string
	erase func(context.Context, *engine.Engine) (*engine.EraseResult, error)
}{
	{"DeleteMessages", func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
		return e.DeleteMessages(ctx, "x")
	}},
	{"DeleteThread", func(ctx context.Context, e *engine.Engine) (*engine.EraseResult, error) {
		return e.DeleteThread(ctx, "t")
	}},
}

// TestReStoredDuringEmbedding: message x is erased and stored again with
// other text while the drainer embeds its erased text, once by
// DeleteMessages (x stored again at the next seq) and once by DeleteThread
// (its thread created again, x at the same thread and seq: an import run
// again). The vector of the erased text must not become the live x's
// embedding: a vector search for the erased text then ranks x by its new
// text, and one for the new text finds x as its exact match. Before the
// fix the drainer stored the erased text's vector for the live x, and the
// live x's own outbox row reused it.
func TestReStoredDuringEmbedding(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		for _, c := range xErasures {
			t.Run(c.name, func(t *testing.T) { testReStoredDuringEmbedding(t, be, c.erase) })
		}
	})
}

func testReStoredDuringEmbedding(t *testing.T, be enginetest.Backend, erase func(context.Context, *engine.Engine) (*engine.EraseResult, error)) {
	ctx := context.Background()
	g := &vectorGate{entered: make(chan struct{}), released: make(chan struct{})}
	e := be.MustOpen(t, engine.Config{Embedder: g})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r", Messages: []engine.Message{
		user("a", "weather is fine today"), user("b", "lunch at noon"),
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("x", "zebra zebra zebra")}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.entered: // the drainer embeds x's first text
	case <-time.After(30 * time.Second):
		t.Fatal("the drainer did not embed x")
	}
	done := make(chan error, 1)
	go func() {
		_, err := erase(ctx, e)
		done <- err
	}()
	for n := 1; n > 0; time.Sleep(time.Millisecond) { // the erasure committed
		if err := engine.ConnOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE id = 'x'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("x", "quokka quokka quokka")}}); err != nil {
		t.Fatal(err)
	}
	close(g.released)
	if err := <-done; err != nil {
		t.Fatalf("erase: %v", err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	checkVectorOfX(ctx, t, e, []vectorQuery{{"zebra zebra zebra", false}, {"quokka quokka quokka", true}})
}

// TestReStoredTwiceDuringEmbedding: message x, stored with text A, is
// erased and stored again with text B as the drainer takes its row
// (before it reads x: the drainer then embeds B), and erased and stored
// again with A while the embedder computes B's vector. x then has its
// first content again, but the vector computed is B's, an erased text: it
// must not become x's embedding. Before the fix the guard compared x's
// content digest read before its text (A's) with x's digest at the store
// (A's again), and stored B's vector for x, which x's own row then
// reused: a vector search for B matched x exactly, one for A did not.
func TestReStoredTwiceDuringEmbedding(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		for _, c := range xErasures {
			t.Run(c.name, func(t *testing.T) { testReStoredTwiceDuringEmbedding(t, be, c.erase) })
		}
	})
}

func testReStoredTwiceDuringEmbedding(t *testing.T, be enginetest.Backend, erase func(context.Context, *engine.Engine) (*engine.EraseResult, error)) {
	ctx := context.Background()
	g := &vectorGate{entered: make(chan struct{}), released: make(chan struct{})}
	e := be.MustOpen(t, engine.Config{Embedder: g})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "u", ResourceID: "r", Messages: []engine.Message{
		user("a", "weather is fine today"), user("b", "lunch at noon"),
	}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	// eraseAndStore erases x (its erasure finishes in the background: its
	// purge waits for the drainer) and stores x again with text.
	var erasures []chan error
	eraseAndStore := func(text string) error {
		done := make(chan error, 1)
		erasures = append(erasures, done)
		go func() {
			_, err := erase(ctx, e)
			done <- err
		}()
		for n := 1; n > 0; time.Sleep(time.Millisecond) { // the erasure committed
			if err := engine.ConnOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE id = 'x'`).Scan(&n); err != nil {
				return err
			}
		}
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("x", text)}})
		return err
	}
	var armed sync.Once
	hooked := make(chan error, 1)
	engine.SetBeforeIndexRead(e, func() { // in the drainer, with x's first row taken
		armed.Do(func() { hooked <- eraseAndStore("zebra zebra zebra") })
	})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("x", "quokka quokka quokka")}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.entered: // the drainer embeds x's second text, read after the hook
	case <-time.After(30 * time.Second):
		t.Fatal("the drainer did not embed x's second text")
	}
	if err := <-hooked; err != nil {
		t.Fatal(err)
	}
	engine.SetBeforeIndexRead(e, nil)
	if err := eraseAndStore("quokka quokka quokka"); err != nil {
		t.Fatal(err)
	}
	close(g.released)
	for _, done := range erasures {
		if err := <-done; err != nil {
			t.Fatalf("erase: %v", err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	checkVectorOfX(ctx, t, e, []vectorQuery{{"zebra zebra zebra", false}, {"quokka quokka quokka", true}})
}

// vectorQuery is a vector search and whether x's vector is its query's.
type vectorQuery struct {
	query string
	match bool
}

// checkVectorOfX fails t unless each vector search of resource r finds x,
// scoring it as an exact match exactly when its query's match is set.
func checkVectorOfX(ctx context.Context, t *testing.T, e *engine.Engine, qs []vectorQuery) {
	t.Helper()
	for _, c := range qs {
		res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "r", Query: c.query, Options: recall.Options{TopK: 3, Mode: recall.ModeVector}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			if h.MessageID != "x" {
				continue
			}
			found = true
			if h.Vector == nil {
				t.Errorf("vector search for %q: x has no vector", c.query)
			} else if (*h.Vector > 0.99) != c.match {
				t.Errorf("vector search for %q: x scores %.3f, want a match: %v (x's embedding is an erased text's)", c.query, *h.Vector, c.match)
			}
		}
		if !found {
			t.Errorf("vector search for %q: hits %+v, want x among them", c.query, res.Hits)
		}
	}
}

// TestStoredVectorsEveryKind: with a stored embedder (whose vectors the
// drainer guards by the text it read, NewVectors.Sources) every kind of
// message gets its vector: one with a name, an assistant's tool calls,
// and a large tool result stored by reference (its guard compares the
// inline summary the text was made of).
func TestStoredVectorsEveryKind(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		g := &vectorGate{entered: make(chan struct{}), released: make(chan struct{})}
		close(g.released)
		e := be.MustOpen(t, engine.Config{Embedder: g})
		named := user("n", "hello there")
		named.Name = "ann"
		msgs := []engine.Message{named,
			{ID: "c", Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call1", Name: "fetch", Arguments: json.RawMessage(`{"q":"parcel"}`)}}},
			{ID: "r", Role: engine.RoleTool, ToolCallID: "call1", Name: "fetch", Content: strings.Repeat("a long result ", 4<<10)},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := engine.ConnOf(e).QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings WHERE embedder = ?`, g.ID()).Scan(&n); err != nil || n != len(msgs) {
			t.Errorf("embeddings stored: %d, %v; want %d", n, err, len(msgs))
		}
	})
}
