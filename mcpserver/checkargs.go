package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/server"
)

// checkArgs wraps a tool handler: arguments that name a key twice in one
// object are a tool error naming its path, "Invalid input: "threadId" is
// given twice …" (server.DuplicateKey, as the HTTP API refuses such a
// body: the SDK would keep the last silently), and an id argument given
// as "" is one naming it, "Invalid input: resourceId is empty: …"; h
// runs only when neither is.
func checkArgs[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		if req == nil || req.Params == nil {
			return h(ctx, req, in)
		}
		if path := server.DuplicateKey(req.Params.Arguments); path != "" {
			return nil, zero, fmt.Errorf("Invalid input: %q is given twice in one object; give each member once (field %s)", path, path)
		}
		// Left out has a meaning (the token's only resource, no thread
		// filter, a new run id), so "" is refused rather than read as left
		// out. The SDK has already refused arguments that are not an object.
		if name := server.EmptyIDMember(req.Params.Arguments); name != "" {
			return nil, zero, fmt.Errorf("Invalid input: %s is empty: give an id or leave it out (field %s)", name, name)
		}
		return h(ctx, req, in)
	}
}
