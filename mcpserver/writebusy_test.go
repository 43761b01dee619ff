package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// TestToolWriteBusy: over /mcp on loopback, a memory_append that waited
// the busy timeout (10 s) at the write gate (engine.ErrWriteBusy; a write
// transaction another handle of the process holds open) is a tool error
// saying the database is busy and to try again, as the HTTP API's 503
// database-busy, not "Internal error". Takes 10 s.
func TestToolWriteBusy(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	cs := serveHTTP(t, e)("alice-secret-1")
	release := enginetest.HoldWrites(t, e)
	failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs("I moved to Porto"), nil)
	release()
	if want := "Database busy: " + server.WriteBusyDetail; !failed || text != want {
		t.Fatalf("append behind a held write lock: failed %v, %q; want %q", failed, text, want)
	}
	if !strings.Contains(text, "try again") {
		t.Errorf("%q does not say to try again", text)
	}
	if failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs("I moved to Porto"), nil); failed {
		t.Fatalf("append once the writer ahead is done: %s", text)
	}
}
