package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// idWriter records the ids of the answers written through it, in order.
type idWriter struct {
	io.WriteCloser
	mu  sync.Mutex
	ids []string
}

var answerID = regexp.MustCompile(`^\{"jsonrpc":"2.0","id":(\d+),"result"`)

func (w *idWriter) Write(b []byte) (int, error) {
	if m := answerID.FindSubmatch(b); m != nil {
		w.mu.Lock()
		w.ids = append(w.ids, string(m[1]))
		w.mu.Unlock()
	}
	return w.WriteCloser.Write(b)
}

// TestPipelinedCalls: requests pipelined on one stream transport, as
// `mnemo mcp` reads them from standard input, are handled concurrently
// and may be answered in another order than sent (walk53 saw it): the
// MCP SDK's server runs each request in its own goroutine. JSON-RPC 2.0
// matches an answer to its request by id, not by position, and the
// official Go SDK client does so: each of 24 calls sent at once, an
// append to a thread of its own, gets its own thread's answer. This
// pins that the reordering is harmless to a client that follows the
// protocol (docs/serve.md, MCP).
func TestPipelinedCalls(t *testing.T) {
	e := openEngine(t)
	_, bob, _ := principals(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &idWriter{WriteCloser: outW}
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.New(e, bob, mcpserver.Options{}).Run(ctx, &mcp.IOTransport{Reader: inR, Writer: w})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			thread := fmt.Sprintf("t%02d", i)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_append", Arguments: map[string]any{
				"threadId": thread, "messages": []map[string]any{{"role": "user", "content": "turn of " + thread}}}})
			if err != nil || res.IsError {
				errs <- fmt.Errorf("%s: %v %+v", thread, err, res)
				return
			}
			var out mcpserver.AppendOutput
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &out); err != nil || out.ThreadID != thread {
				errs <- fmt.Errorf("the call appending to %s got the answer %s (%v)", thread, b, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cs.Close()
	inW.Close()
	<-done
	w.mu.Lock()
	defer w.mu.Unlock()
	t.Logf("answers written in the order of ids %v", w.ids)
}
