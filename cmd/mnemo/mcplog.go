package main

import (
	"context"
	"errors"
	"log/slog"
)

// sdkRunCancelled is the message the MCP SDK logs at ERROR when the
// context of Server.Run ends (mcp/server.go, v1.8.0).
const sdkRunCancelled = "server run cancelled"

// stopNotError is a slog.Handler that logs the SDK's sdkRunCancelled at
// INFO when its error is the context's cancellation (Ctrl-C, SIGTERM): a
// stop the operator asked for is not an error (mnemo serve logs its
// shutdown at INFO). Under mnemo mcp's WARN level it is then not logged.
// Every other record passes as it is.
type stopNotError struct{ slog.Handler }

// Handle implements slog.Handler.
func (h stopNotError) Handle(ctx context.Context, r slog.Record) error {
	if r.Level <= slog.LevelInfo || r.Message != sdkRunCancelled || !cancelledRecord(r) {
		return h.Handler.Handle(ctx, r)
	}
	if !h.Handler.Enabled(ctx, slog.LevelInfo) {
		return nil
	}
	info := slog.NewRecord(r.Time, slog.LevelInfo, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool { info.AddAttrs(a); return true })
	return h.Handler.Handle(ctx, info)
}

// WithAttrs implements slog.Handler.
func (h stopNotError) WithAttrs(attrs []slog.Attr) slog.Handler {
	return stopNotError{h.Handler.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h stopNotError) WithGroup(name string) slog.Handler {
	return stopNotError{h.Handler.WithGroup(name)}
}

// cancelledRecord reports whether r's "error" attribute is a context's
// cancellation or deadline.
func cancelledRecord(r slog.Record) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "error" {
			found = errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
			return false
		}
		return true
	})
	return found
}
