package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/server"
)

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

// emptyIDArg is the first of server.IDMembers the request gives as "", or
// "" (the SDK has already refused arguments that are not an object). Left
// out has a meaning (the token's only resource, no thread filter, a new run
// id), so "" is refused rather than read as left out.
func emptyIDArg(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil {
		return ""
	}
	return server.EmptyIDMember(req.Params.Arguments)
}
