package inspector_test

import (
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
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/server"
)

// TestPageTimeoutDatabaseHangs: an inspector page on a Postgres that
// stopped answering (connections open, nothing answered) ends at the
// inspector's Options.Timeout with a 503 "Request timed out" page, over a
// real loopback connection whose client sets no timeout of its own.
// Before, the page waited for as long as its client did (mounts get no
// RequestTimeout): for ever here.
func TestPageTimeoutDatabaseHangs(t *testing.T) {
	px, ts := inspectorOnProxy(t, time.Second)
	defer ts.Close()
	px.Hang()
	defer px.Resume() // a handler still waiting would hold ts.Close
	for _, path := range []string{"/ui/", "/ui/threads/t1"} {
		type answer struct {
			status int
			body   string
			err    error
		}
		done := make(chan answer, 1)
		go func() {
			resp, err := http.Get(ts.URL + path)
			if err != nil {
				done <- answer{err: err}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			done <- answer{resp.StatusCode, string(b), err}
		}()
		var a answer
		select {
		case a = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("GET %s on a database that does not answer did not end within 20 s", path)
		}
		if a.err != nil {
			t.Fatal(a.err)
		}
		if a.status != http.StatusServiceUnavailable || !strings.Contains(a.body, "Request timed out") {
			t.Errorf("GET %s on a hanging database: %d, want 503 Request timed out: %q", path, a.status, a.body[max(0, strings.Index(a.body, "<main")):])
		}
	}
}

// TestPageDatabaseUnavailable: an inspector page on a Postgres that is
// gone (connections closed, new ones refused) is the 503 "Service
// unavailable" page the API's routes answer with, not a 500 "internal"
// page (render described the error without the engine, hang1).
func TestPageDatabaseUnavailable(t *testing.T) {
	px, ts := inspectorOnProxy(t, 10*time.Second)
	defer ts.Close()
	px.Close()
	for _, path := range []string{"/ui/", "/ui/threads/t1"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if body := string(b); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "unreachable") {
			t.Errorf("GET %s on a database that is gone: %d, want 503 saying the database is unreachable: %q", path, resp.StatusCode, body[max(0, strings.Index(body, "<main")):])
		}
	}
}

// inspectorOnProxy serves the inspector (Options.Timeout timeout) of an
// engine on Postgres through a pgtest.Proxy, thread t1 of resource u1
// holding one message; the caller closes the server.
func inspectorOnProxy(t *testing.T, timeout time.Duration) (*pgtest.Proxy, *httptest.Server) {
	t.Helper()
	e, px := enginetest.OpenBehindProxy(t, engine.Config{})
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "t1", ResourceID: "u1",
		Messages: []engine.Message{{Role: engine.RoleUser, Content: "I moved to Porto"}}}); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test", Timeout: timeout})}})
	if err != nil {
		t.Fatal(err)
	}
	return px, httptest.NewServer(srv.Handler())
}
