package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestRequestTimeoutDatabaseHangs: an API request on a Postgres that
// stopped answering (connections open, nothing answered: a network black
// hole, a stopped server) ends at the server's RequestTimeout with a 503
// "timeout" problem and Retry-After, over a real loopback connection whose
// client sets no timeout of its own. Before, the request waited for as
// long as the client did: for ever here.
func TestRequestTimeoutDatabaseHangs(t *testing.T) {
	e, px := enginetest.OpenBehindProxy(t, engine.Config{})
	srv, err := server.New(server.Config{Engine: e, Logger: discardLogger(), RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	px.Hang()
	type answer struct {
		resp *http.Response
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/v1/search", "application/json", strings.NewReader(`{"resourceId":"u1","query":"Porto"}`))
		done <- answer{resp, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("POST /v1/search on a database that does not answer did not end within 20 s")
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	defer a.resp.Body.Close()
	var p server.Problem
	if err := json.NewDecoder(a.resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	if a.resp.StatusCode != http.StatusServiceUnavailable || a.resp.Header.Get("Retry-After") == "" || p.Type != server.ProblemTypeBase+"timeout" {
		t.Fatalf("POST /v1/search on a hanging database: %d, Retry-After %q, %+v; want 503 timeout with Retry-After", a.resp.StatusCode, a.resp.Header.Get("Retry-After"), p)
	}
}

// TestRequestTimeoutNegative: a negative RequestTimeout is refused.
func TestRequestTimeoutNegative(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	if _, err := server.New(server.Config{Engine: e, RequestTimeout: -time.Second}); err == nil || !strings.Contains(err.Error(), "RequestTimeout") {
		t.Fatalf("New with a negative RequestTimeout: %v, want an error naming it", err)
	}
}
