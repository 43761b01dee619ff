package server_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// heldEmbedder is hash-384 whose query embeddings (one text), once armed,
// signal entered and wait until the request's context ends: the hook that
// holds a search in flight while its client hangs up.
type heldEmbedder struct {
	recall.HashEmbedder
	armed   chan struct{} // closed: queries are held
	entered chan struct{}
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
	return nil, ctx.Err()
}

// TestClientHangsUp: a client that disconnects while POST /v1/search and
// POST /v1/context run cancels the request's context; the engine stops
// (the held embedding returns, the search fails with context.Canceled) and
// the server logs the request as 499 (client closed the request) at info
// level. It logged "request failed" at error level with a 500, counted as
// an internal error in the metrics, for what is no fault of the server.
// The cancelled /v1/context records no run.
func TestClientHangsUp(t *testing.T) {
	enginetest.ForEachBackend(t, testClientHangsUp)
}

func testClientHangsUp(t *testing.T, be enginetest.Backend) {
	emb := &heldEmbedder{armed: make(chan struct{}), entered: make(chan struct{})}
	h := newHarnessOn(t, true, server.Config{}, be.Config(t, engine.Config{Embedder: emb}))
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", aliceToken, map[string]any{
		"resourceId": "res-alice", "messages": []map[string]any{{"role": "user", "content": "the night train to Porto leaves at ten"}},
	}, http.StatusOK)
	if err := h.e.SyncIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(emb.armed)
	for _, c := range []struct{ path, body string }{
		{"/v1/search", `{"resourceId":"res-alice","query":"train to Porto"}`},
		{"/v1/context", `{"threadId":"t1","runId":"run-hung-up","query":"train to Porto","recall":{"topK":2}}`},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.ts.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		req.Header.Set("Content-Type", "application/json")
		done := make(chan error, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
		select {
		case <-emb.entered: // the search is under way, held in the query's embedding
		case err := <-done:
			t.Fatalf("%s answered before its search started: %v", c.path, err)
		}
		cancel() // the client hangs up
		if err := <-done; err == nil {
			t.Fatalf("%s: the client got an answer after hanging up", c.path)
		}
	}
	// Close waits until every request has been handled: their log lines
	// are written.
	h.ts.Close()
	logs := h.logs.String()
	if strings.Contains(logs, "request failed") {
		t.Errorf("a client's hang-up was logged as a server error:\n%s", logs)
	}
	for _, route := range []string{"POST /v1/search", "POST /v1/context"} {
		if !bytes.Contains([]byte(logs), []byte(`"route":"`+route+`","path":`)) {
			t.Fatalf("no access-log line for %s:\n%s", route, logs)
		}
		line := logLine(logs, `"route":"`+route+`"`)
		if !strings.Contains(line, `"status":499`) {
			t.Errorf("%s after a hang-up logged %s, want status 499", route, line)
		}
	}
	if runs, err := h.e.Journal().ListRuns(context.Background(), journal.RunFilter{ThreadID: "t1"}); err != nil || len(runs) != 0 {
		t.Errorf("runs after a hung-up /v1/context: %+v, %v; want none", runs, err)
	}
}

// logLine returns the first line of logs holding sub.
func logLine(logs, sub string) string {
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
