package mcpserver_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestToolTimeoutFloor: an Options.ToolTimeout below
// server.MinRequestTimeout is raised to it, with a warning, as mnemo
// serve's requestTimeout has that floor. With 1 ns every call answered
// "Timeout: …" (a library user's typo for 1 s, or a unit forgotten).
func TestToolTimeoutFloor(t *testing.T) {
	e := openEngine(t)
	alice, _, _ := principals(t)
	var logs bytes.Buffer
	cs := connectWith(t, e, alice, mcpserver.Options{ToolTimeout: time.Nanosecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs("I moved to Porto"), nil); failed {
		t.Fatalf("append under ToolTimeout 1ns: %s", text)
	}
	if failed, text := call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "Porto"}, nil); failed {
		t.Fatalf("search under ToolTimeout 1ns: %s", text)
	}
	if !strings.Contains(logs.String(), "below server.MinRequestTimeout") || !strings.Contains(logs.String(), "toolTimeout=1ns") {
		t.Errorf("no warning of the raised bound: %q", logs.String())
	}
}
