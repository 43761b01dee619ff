package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestToolsDatabaseDown: with the engine's Postgres gone (a loopback proxy
// the test closes), a tool answers "Service unavailable" with a text that
// says to try again, as the HTTP routes answer 503, not an internal error
// that reads like a bug.
func TestToolsDatabaseDown(t *testing.T) {
	px := pgtest.NewProxy(t, pgtest.DSN(t))
	e, err := engine.Open(context.Background(), engine.Config{Postgres: px.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
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
