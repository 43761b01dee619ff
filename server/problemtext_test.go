package server_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/mcpserver"
	"github.com/mnemo-go/mnemo/server"
)

// TestProblemTextAsGiven: a problem names the client's text as it was
// sent, "<", ">" and "&" included, as the API's success answers keep
// stored text: a body's unknown member "<b>&x" is `unknown field
// "<b>&x"`, and the 401 of the API, /mcp and the inspector says "Bearer
// <token>". The answer is application/problem+json with nosniff and
// no-store, which no browser renders as HTML. Before, encoding/json's HTML
// escaping wrote "\u003cb\u003e\u0026x" and "Bearer \u003ctoken\u003e".
func TestProblemTextAsGiven(t *testing.T) {
	var h *harness
	h = newHarness(t, true, server.Config{Mount: map[string]func(*server.Principal) http.Handler{
		"/mcp": func(p *server.Principal) http.Handler {
			return mcpserver.Handler(h.e, mcpserver.Options{Logger: discardLogger()})(p)
		},
		"/ui/": func(p *server.Principal) http.Handler {
			return inspector.Handler(h.e, inspector.Options{Logger: discardLogger()})(p)
		},
	}})
	check := func(what string, r response, status int, want ...string) {
		t.Helper()
		if r.status != status || r.header.Get("Content-Type") != "application/problem+json" ||
			r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d, Content-Type %q, X-Content-Type-Options %q, Cache-Control %q; want %d, application/problem+json, nosniff, no-store",
				what, r.status, r.header.Get("Content-Type"), r.header.Get("X-Content-Type-Options"), r.header.Get("Cache-Control"), status)
		}
		for _, w := range want {
			if !bytes.Contains(r.body, []byte(w)) {
				t.Errorf("%s: the answer %s does not hold %s", what, r.body, w)
			}
		}
		if bytes.Contains(r.body, []byte(`\u00`)) {
			t.Errorf("%s: the answer %s escapes a character", what, r.body)
		}
	}
	r := h.do("POST", "/v1/threads/t1/messages", aliceToken, `{"resourceId":"res-alice","<b>&x":1,"messages":[{"role":"user","content":"hi"}]}`)
	check("unknown member", r, http.StatusBadRequest, `"detail":"unknown field \"<b>&x\" (the body takes resourceId and messages)"`, `"field":"<b>&x"`)
	for _, path := range []string{"/v1/threads", "/mcp", "/ui/threads"} {
		check(path+" without a token", h.do("GET", path, "", nil), http.StatusUnauthorized, "Bearer <token>")
	}
}

// TestOpenAPITextAsGiven: /openapi.json writes its descriptions as they
// are: "Authorization: Bearer <token>" and "seq < beforeSeq". Before,
// json.MarshalIndent's HTML escaping wrote "\u003ctoken\u003e" and
// "seq \u003c beforeSeq" to whoever read the document.
func TestOpenAPITextAsGiven(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	r := h.do("GET", "/openapi.json", "", nil)
	for _, want := range []string{"Bearer <token>", "seq < beforeSeq"} {
		if !bytes.Contains(r.body, []byte(want)) {
			t.Errorf("/openapi.json does not hold %q", want)
		}
	}
	if i := bytes.Index(r.body, []byte(`\u00`)); i >= 0 {
		t.Errorf("/openapi.json escapes a character: %s", r.body[max(0, i-60):min(len(r.body), i+60)])
	}
}
