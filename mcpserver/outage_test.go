package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestToolsDatabaseDown: with the engine's Postgres gone (a loopback proxy
// the test closes), a tool answers "Service unavailable" with a text that
// says to try again, as the HTTP routes answer 503, not an internal error
// that reads like a bug.
func TestToolsDatabaseDown(t *testing.T) {
	e, px := enginetest.OpenBehindProxy(t, engine.Config{})
	alice, _, _ := principals(t)
	cs := connect(t, e, alice)
	var ok mcpserver.AppendOutput
	if failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs("I moved to Porto"), &ok); failed {
		t.Fatalf("append with the database up: %s", text)
	}
	px.Close()
	for _, tool := range []string{mcpserver.ToolSearch, mcpserver.ToolAppend} {
		args := appendArgs("and then Lisbon")
		if tool == mcpserver.ToolSearch {
			args = map[string]any{"query": "Porto"}
		}
		failed, text := call(t, cs, tool, args, nil)
		if !failed || !strings.Contains(text, "Service unavailable") || !strings.Contains(text, "try again") {
			t.Errorf("%s with the database down: failed %v, %q; want Service unavailable ... try again", tool, failed, text)
		}
	}
}

func appendArgs(content string) map[string]any {
	return map[string]any{"threadId": "t1", "messages": []map[string]any{{"role": "user", "content": content}}}
}

// TestToolTimeoutDatabaseHangs: a tool call and a resource read on a
// Postgres that stopped answering (connections open, nothing answered: a
// network black hole, a stopped server) end at Options.ToolTimeout with
// "Timeout: …", as the HTTP API's requests end at its RequestTimeout.
// Before, they waited for as long as the client did: for ever for a
// client without a timeout of its own (this one).
func TestToolTimeoutDatabaseHangs(t *testing.T) {
	e, px := enginetest.OpenBehindProxy(t, engine.Config{})
	alice, _, _ := principals(t)
	cs := connectWith(t, e, alice, mcpserver.Options{ToolTimeout: time.Second})
	if failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs("I moved to Porto"), nil); failed {
		t.Fatalf("append with the database up: %s", text)
	}
	px.Hang()
	type answer struct {
		text string
		err  error
	}
	done := make(chan answer, 2)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolSearch, Arguments: map[string]any{"query": "Porto"}})
		var a answer
		if a.err = err; err == nil {
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok && res.IsError {
					a.text += tc.Text
				}
			}
		}
		done <- a
	}()
	go func() {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "mnemo://threads/t1/messages"})
		a := answer{err: err}
		if err != nil {
			a.text, a.err = err.Error(), nil
		}
		done <- a
	}()
	for range 2 {
		select {
		case a := <-done:
			if a.err != nil || !strings.Contains(a.text, "Timeout: the call did not finish within the server's tool timeout (1s)") {
				t.Errorf("a call on a database that does not answer: %q, %v; want Timeout naming 1s", a.text, a.err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a call on a database that does not answer did not end within 20 s")
		}
	}
}
