package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestPanicAnswered: a handler that panics is answered 500 with a problem
// whose detail does not carry the panic (the log has it, with its stack);
// before, net/http dropped the connection and a client got no answer at
// all (the review's garbled snapshot made every search do that).
func TestPanicAnswered(t *testing.T) {
	h := newHarness(t, true, server.Config{Mount: map[string]func(*server.Principal) http.Handler{
		"GET /v1/boom": func(*server.Principal) http.Handler {
			return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret-bytes-of-the-panic") })
		},
	}})
	r := h.do(http.MethodGet, "/v1/boom", aliceToken, nil)
	if r.status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500; body %s", r.status, r.body)
	}
	if p := r.problem(t); strings.Contains(p.Detail, "secret-bytes") {
		t.Errorf("the answer shows the panic: %+v", p)
	}
	if logs := h.logs.String(); !strings.Contains(logs, "request panicked") || !strings.Contains(logs, "secret-bytes-of-the-panic") {
		t.Errorf("the log lacks the panic:\n%s", logs)
	}
	// The server still answers.
	if r := h.do(http.MethodGet, "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("healthz after the panic: %d", r.status)
	}
}
