package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
