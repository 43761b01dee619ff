package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idArgs are the tool arguments that name a thread, resource, message or
// run. Decoded into a string, "" cannot be told from left out, and left out
// has a meaning (the token's only resource, no thread filter, a new run
// id): refuseEmptyIDs refuses "" instead, as the HTTP API refuses
// ?resourceId= .
var idArgs = []string{"resourceId", "threadId", "messageId", "runId"}

// refuseEmptyIDs wraps a tool handler: an id argument given as "" is a tool
// error naming it, "Invalid input: resourceId is empty: …", before h runs.
func refuseEmptyIDs[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if name := emptyIDArg(req); name != "" {
			var zero Out
			return nil, zero, fmt.Errorf("Invalid input: %s is empty: give an id or leave it out (field %s)", name, name)
		}
		return h(ctx, req, in)
	}
}

// emptyIDArg is the first of idArgs the request gives as "", or "".
func emptyIDArg(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return ""
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(req.Params.Arguments, &args) != nil {
		return "" // the SDK has already refused arguments that are not an object
	}
	for _, name := range idArgs {
		if v, ok := args[name]; ok && string(v) == `""` {
			return name
		}
	}
	return ""
}
