package inspector_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestTimeoutFloor: an Options.Timeout below server.MinRequestTimeout is
// raised to it, with a warning, as mnemo serve's requestTimeout has that
// floor. With 1 ns every page was the 503 "Request timed out" page.
func TestTimeoutFloor(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t1", ResourceID: "u1",
		Messages: []engine.Message{{Role: engine.RoleUser, Content: "I moved to Porto"}}}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test", Timeout: time.Nanosecond,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for _, path := range []string{"/ui/", "/ui/threads/t1"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s under Timeout 1ns: %d, want 200: %s", path, resp.StatusCode, b[max(0, bytes.Index(b, []byte("<main"))):])
		}
	}
	if !strings.Contains(logs.String(), "below server.MinRequestTimeout") || !strings.Contains(logs.String(), "timeout=1ns") {
		t.Errorf("no warning of the raised bound: %q", logs.String())
	}
}
