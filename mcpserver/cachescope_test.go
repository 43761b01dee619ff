package mcpserver_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCacheScopePrivate: a resources/read of a tenant's thread and the
// list methods say "cacheScope": "private" and "ttlMs" 0. The SDK's
// default, which every answer carried, was "public": any client or
// intermediary may cache and serve the response, alice's conversation
// included.
func TestCacheScopePrivate(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	alice, _, _ := principals(t)
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t-cache", ResourceID: "res-alice",
		Messages: []engine.Message{{Role: "user", Content: "my card ends in 4242"}}}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, e, alice)
	rr, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://threads/t-cache/messages"})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := c.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := c.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]mcp.Cacheable{"resources/read": rr.Cacheable, "tools/list": tl.Cacheable, "resources/templates/list": rt.Cacheable} {
		if got.CacheScope != "private" || got.TTLMs != 0 {
			t.Errorf("%s: cacheScope %q, ttlMs %d; want private and 0", name, got.CacheScope, got.TTLMs)
		}
	}
}
