package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestMCPStopNotError: walk43 F8. Ctrl-C of `mnemo mcp` logged
// level=ERROR msg="server run cancelled" session=s1 error="context canceled" (the MCP
// SDK's, through the logger mnemo passes it): a stop the operator asked
// for is not an error. It is now INFO, under mnemo mcp's WARN level not
// logged; the SDK's other errors, and this message with another error,
// stay ERROR.
func TestMCPStopNotError(t *testing.T) {
	t.Run("Run", func(t *testing.T) {
		dir := storedDir(t, engine.Config{}, false, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "hello"}))
		in, w := io.Pipe() // standard input held open, as a client's
		defer w.Close()
		var out, errOut enginetest.SyncBuffer
		m := &Main{Stdin: in, Stdout: &out, Stderr: &errOut,
			Getenv: func(k string) string { return map[string]string{"MNEMO_EMBEDDER": "hash-384"}[k] }}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(500*time.Millisecond, cancel) // the Ctrl-C
		code := m.Run(ctx, []string{"--dir", dir, "mcp", "--resources", "r"})
		errText := errOut.String()
		if code != 0 || strings.Contains(errText, "level=ERROR") || strings.Contains(errText, sdkRunCancelled) {
			t.Errorf("mcp stopped by its context: exit %d, standard error:\n%s", code, errText)
		}
	})
	for _, c := range []struct {
		name  string
		level slog.Level
		msg   string
		err   error
		want  string // "" for nothing logged
	}{
		{"CancelledAtWarn", slog.LevelWarn, sdkRunCancelled, context.Canceled, ""},
		{"CancelledAtInfo", slog.LevelInfo, sdkRunCancelled, context.Canceled, `level=INFO msg="server run cancelled" session=s1 error="context canceled"`},
		{"Deadline", slog.LevelWarn, sdkRunCancelled, context.DeadlineExceeded, ""},
		{"OtherError", slog.LevelWarn, sdkRunCancelled, io.ErrUnexpectedEOF, `level=ERROR msg="server run cancelled" session=s1 error="unexpected EOF"`},
		{"OtherMessage", slog.LevelWarn, "write failed", context.Canceled, `level=ERROR msg="write failed" session=s1 error="context canceled"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			log := slog.New(stopNotError{slog.NewTextHandler(&b, &slog.HandlerOptions{Level: c.level})}).With("session", "s1")
			log.Error(c.msg, "error", c.err)
			if c.want == "" && b.Len() > 0 || c.want != "" && !strings.Contains(b.String(), c.want) {
				t.Errorf("logged %q, want %q", b.String(), c.want)
			}
		})
	}
}
