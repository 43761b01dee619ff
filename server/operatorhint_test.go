package server_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestOperatorResourceHint: without a token file, a search that names no
// resource (nor a stored thread) is a 400 on resourceId that says what is
// true there. It said "…or the token has one resource", with no token
// anywhere (readme54).
func TestOperatorResourceHint(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	for _, body := range []string{`{"query":"what does the cat eat"}`, `{"query":"what does the cat eat","threadId":"nope"}`} {
		r := h.do("POST", "/v1/search", "", body)
		if r.status != 400 {
			t.Fatalf("%s: status %d, want 400: %s", body, r.status, r.body)
		}
		p := r.problem(t)
		if p.Field != "resourceId" || !strings.Contains(p.Detail, "without a token file") || strings.Contains(p.Detail, "token has") {
			t.Errorf("%s: problem %+v, want resourceId and a detail for a server without a token file", body, p)
		}
	}
}
