package mcpserver_test

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/mcpserver"
)

// TestInternalErrorLogged: a tool call or resource read that fails with an
// internal error ("the server log has the cause") logs the cause to
// Options.Logger, naming the tool or URI and the token, without the stored
// text; the cause was never logged. The engine's messages table is renamed
// under it, so its reads fail as no error the API classifies.
func TestInternalErrorLogged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	alice, _, _ := principals(t)
	var log enginetest.SyncBuffer
	st, ct := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(e, alice, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	const secret = "my locker code is 4471"
	if failed, text := call(t, cs, mcpserver.ToolAppend, appendArgs(secret), nil); failed {
		t.Fatalf("append: %s", text)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`ALTER TABLE messages RENAME TO messages_gone`); err != nil {
		t.Fatal(err)
	}

	failed, text := call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "locker code"}, nil)
	if !failed || !strings.Contains(text, "the server log has the cause") {
		t.Fatalf("search on a broken store: failed %v, %q; want an internal error", failed, text)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mnemo://threads/t1/messages"})
	if err == nil {
		t.Fatal("read of messages on a broken store: no error")
	}
	got := log.String()
	for _, want := range []string{`msg="mcp tool failed" token=alice tool=memory_search err=`, `msg="mcp resource read failed" token=alice uri=mnemo://threads/t1/messages err=`, "no such table: messages"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "4471") {
		t.Errorf("log holds stored text:\n%s", got)
	}
}
