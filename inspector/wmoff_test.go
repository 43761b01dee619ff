package inspector_test

import (
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
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
	page := html.UnescapeString(unwrapped(body))
	for _, want := range []string{"Working memory is not configured: ", `"workingMemory" member`, "engine.Config.WorkingMemory"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
