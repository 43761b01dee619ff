package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
)

// TestMemCtxDispatchedOnly: the memctx resource of a run that dispatched
// a call without loading a context says it has no record and names the
// dispatch, as GET /v1/runs/{run}/memctx and mnemo memctx do (small64:
// it said the record "was pruned by retention, lost …, or never
// written"); another tenant gets the SDK's plain "Resource not found".
func TestMemCtxDispatchedOnly(t *testing.T) {
	e := openEngine(t)
	alice, bob, _ := principals(t)
	ctx := context.Background()
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_0", Name: "charge_card", Arguments: json.RawMessage(`{"amount":5}`)}}}
	if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-d", ThreadID: "t1", ResourceID: "res-alice", Message: call}); err != nil {
		t.Fatal(err)
	}
	told := `Resource not found: run not found: "run-d": ` + journal.RunDispatchedDetail + `; it holds 1 dispatch: call "call_0" of charge_card, pending (its outcome is unknown; begun 20`
	for who, c := range map[string]struct {
		p    *mcp.ClientSession
		want string
	}{"alice": {connect(t, e, alice), told}, "bob": {connect(t, e, bob), "Resource not found"}} {
		_, err := c.p.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://runs/run-d/memctx"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || !strings.HasPrefix(je.Message, c.want) || (c.want != told && je.Message != c.want) {
			t.Errorf("%s: read run-d: %v, want code %d %q", who, err, mcp.CodeResourceNotFound, c.want)
		}
	}
}
