package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
)

// TestResourceIDFieldNamed: an invalid id in a resource URI (one its
// percent-decoding makes invalid: "/", NUL, a double-encoded ':') is an
// error naming the template's variable, {thread} or {run}, not the tools'
// argument threadId or runId, which a resource read does not have.
func TestResourceIDFieldNamed(t *testing.T) {
	ctx := context.Background()
	alice, _, _ := principals(t)
	cs := connect(t, openEngine(t), alice)
	for uri, field := range map[string]string{
		"mnemo://threads/a%2Fb/messages":        "thread",
		"mnemo://threads/a%00b/messages":        "thread",
		"mnemo://threads/ana%253Awork/messages": "thread",
		"mnemo://runs/a%2Fb/memctx":             "run",
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil || !strings.Contains(err.Error(), "(field "+field+")") {
			t.Errorf("%s: %v, want an error naming field %s", uri, err, field)
		}
	}
}

// TestResourceReadErrorCode: a resource read refused for its input (an
// invalid id, an unknown, repeated or out-of-range parameter) is a JSON-RPC
// error with code -32602 (invalid params), as a missing resource is (the
// SDK's ResourceNotFoundError); before, it went out with code 0, which
// JSON-RPC does not define, so a client could not tell it from a failure.
func TestResourceReadErrorCode(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	alice, _, _ := principals(t)
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "res-alice",
		Messages: []engine.Message{{Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, e, alice)
	for _, uri := range []string{
		"mnemo://threads/a%2Fb/messages",
		"mnemo://runs/a%00b/memctx",
		"mnemo://threads/t1/messages?beforeSeq=-1",
		"mnemo://threads/t1/messages?limit=5&limit=6",
		"mnemo://threads/t1/messages?limit=1001",
		"mnemo://threads/t1/messages?foo=1",
		"mnemo://threads/nowhere/messages",
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v (%#v), want a JSON-RPC error with code %d", uri, err, we, jsonrpc.CodeInvalidParams)
		}
	}
}
