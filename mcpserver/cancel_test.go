package mcpserver_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/recall"
)

// heldEmbedder is hash-384 whose query embeddings (one text), once armed,
// signal entered, wait until the call's context ends and signal left: the
// hook that holds a tool call in flight while its client cancels it.
type heldEmbedder struct {
	recall.HashEmbedder
	armed         chan struct{} // closed: queries are held
	entered, left chan struct{}
}

func (h *heldEmbedder) ID() string { return "held-384" }

func (h *heldEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-h.armed:
	default:
		return h.HashEmbedder.Embed(ctx, texts)
	}
	if len(texts) != 1 {
		return h.HashEmbedder.Embed(ctx, texts)
	}
	h.entered <- struct{}{}
	<-ctx.Done()
	h.left <- struct{}{}
	return nil, ctx.Err()
}

// TestToolCallCancelled: a client that cancels a tool call (the go-sdk
// sends notifications/cancelled) cancels the handler's context: the
// engine's search held in the query's embedding returns, and the call is
// logged at Info as "mcp tool cancelled". It was logged at Error as "mcp
// tool failed" (an internal error, "the server log has the cause"), for
// what is no fault of the server.
func TestToolCallCancelled(t *testing.T) {
	ctx := context.Background()
	emb := &heldEmbedder{armed: make(chan struct{}), entered: make(chan struct{}), left: make(chan struct{})}
	e := enginetest.MustOpen(t, engine.Config{Embedder: emb})
	alice, _, _ := principals(t)
	var log enginetest.SyncBuffer
	st, ct := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(e, alice, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs("the night train to Porto leaves at ten"), nil); failed {
		t.Fatalf("append: %s", text)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	close(emb.armed)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: mcpserver.ToolSearch, Arguments: map[string]any{"query": "train to Porto"}})
		done <- err
	}()
	<-emb.entered // the search is under way, held in the query's embedding
	cancel()
	<-emb.left // the handler's context was cancelled: the engine stopped
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	// The handler logs once the engine returned; a generous guard, no timing.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "mcp tool cancelled"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no \"mcp tool cancelled\" line 10 s after the cancel:\n%s", log.String())
		}
	}
	if got := log.String(); strings.Contains(got, "mcp tool failed") || !strings.Contains(got, "level=INFO msg=\"mcp tool cancelled\" token=alice tool=memory_search") {
		t.Errorf("log after a cancelled call:\n%s", got)
	}
}
