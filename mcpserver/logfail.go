package mcpserver

import (
	"context"
	"errors"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// internalError is a tool's answer of status 500 or more ("Internal
// error: the request failed; the server log has the cause", "Service
// unavailable: …"): text is what the caller sees, cause what logFailed
// logs.
type internalError struct {
	text  string
	cause error
}

func (e *internalError) Error() string { return e.text }

// logFailed wraps the handler of tool name: when it fails with an
// *internalError, the cause goes to log at Error as "mcp tool failed" with
// the tool and the error text (which names ids, never
// stored text), as the HTTP routes log a 500's cause. A call the client
// cancelled (notifications/cancelled, or its connection gone: ctx is done)
// that failed with context.Canceled is no fault: it is logged at Info as
// "mcp tool cancelled", as the HTTP routes log a hang-up as 499. The
// caller's answer is unchanged.
func logFailed[In, Out any](log *slog.Logger, name string, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if ie := (*internalError)(nil); errors.As(err, &ie) {
			if cancelled(ctx, ie.cause) {
				log.LogAttrs(ctx, slog.LevelInfo, "mcp tool cancelled", slog.String("tool", name))
				return res, out, err
			}
			log.LogAttrs(ctx, slog.LevelError, "mcp tool failed", slog.String("tool", name), slog.String("err", ie.cause.Error()))
		}
		return res, out, err
	}
}

// cancelled reports whether err is the end of a request its client
// cancelled: ctx is done and err wraps context.Canceled.
func cancelled(ctx context.Context, err error) bool {
	return ctx.Err() != nil && errors.Is(err, context.Canceled)
}
