package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestContextRunErased: memory_context under the run id of an erased
// thread tells the run's own tenant that the thread was erased, as POST
// /v1/context does (small64: it said the run id belongs to another
// conversation); another tenant gets the words of a run id another
// conversation holds, as before the erasure.
func TestContextRunErased(t *testing.T) {
	e := openEngine(t)
	alice, bob, _ := principals(t)
	ctx := context.Background()
	for _, c := range []struct{ thread, resource string }{{"t1", "res-alice"}, {"t-bob", "res-bob"}} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: c.thread, ResourceID: c.resource, Messages: []engine.Message{
			{Role: engine.RoleUser, Content: "plans for the orchard"},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	as, bs := connect(t, e, alice), connect(t, e, bob)
	if failed, text := call(t, as, mcpserver.ToolContext, map[string]any{"threadId": "t1", "runId": "run-e"}, nil); failed {
		t.Fatal(text)
	}
	failed, owned := call(t, bs, mcpserver.ToolContext, map[string]any{"threadId": "t-bob", "runId": "run-e"}, nil)
	if !failed || !strings.Contains(owned, "belongs to another conversation") {
		t.Fatalf("bob before the erasure: %v %q, want the run id refused as another conversation's", failed, owned)
	}
	if _, err := e.DeleteThread(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "res-alice", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "are you there?"},
	}}); err != nil {
		t.Fatal(err)
	}
	if failed, text := call(t, as, mcpserver.ToolContext, map[string]any{"threadId": "t1", "runId": "run-e"}, nil); !failed ||
		!strings.Contains(text, "the run id's thread was erased; choose another id") {
		t.Errorf("alice after the erasure: %v %q, want the thread said erased", failed, text)
	}
	if failed, text := call(t, bs, mcpserver.ToolContext, map[string]any{"threadId": "t-bob", "runId": "run-e"}, nil); !failed || text != owned {
		t.Errorf("bob after the erasure: %v %q, want %q as before it", failed, text, owned)
	}
}
