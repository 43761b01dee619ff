package inspector_test

import (
	"context"
	"database/sql"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestThreadPageWorkingMemoryOff: a thread page on an engine without
// working memory says how to turn it on, in the HTTP API's words
// (server.WorkingMemoryOffDetail). It said only "Working memory is not
// configured."
func TestThreadPageWorkingMemoryOff(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t1", ResourceID: "r1",
		Messages: []engine.Message{{Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	page := threadPage(t, e)
	for _, want := range []string{"Working memory is not configured: ", `"workingMemory" member`, "engine.Config.WorkingMemory"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestThreadPageWorkingMemoryStoredBroken: when the working-memory
// configuration stored in the database does not build here
// (engine.ErrStoredWorkingMemory), the thread page shows the messages and
// says why working memory is unavailable. Before, the page was a 500.
func TestThreadPageWorkingMemoryStoredBroken(t *testing.T) {
	dir := t.TempDir()
	e := enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Template: "# Notes\n"}})
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t1", ResourceID: "r1",
		Messages: []engine.Message{{Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE working_config SET config = '{"mode":"patch","scope":"thread"}'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	e = enginetest.MustOpen(t, engine.Config{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	page := threadPage(t, e)
	for _, want := range []string{"Working memory is unavailable: ", `mode "patch"`, "hello"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// threadPage returns the inspector's page of thread t1 of e, unescaped
// and unwrapped; it fails t unless the answer is 200.
func threadPage(t *testing.T, e *engine.Engine) string {
	t.Helper()
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	code, body := get(t, ts.URL+"/ui/threads/t1", "")
	if code != 200 {
		t.Fatalf("thread page: %d, want 200", code)
	}
	return html.UnescapeString(unwrapped(body))
}
