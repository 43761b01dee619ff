package inspector_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestLoginLogsNothingAsked: a sign-in whose next is refused (a GET
// answered 400, a POST sent to /ui/ instead) leaves in the access log its
// method, route, path (/ui/login), status and no token name, never the
// token nor the next it asked for: the access log logs the path, not the
// query or the form. The POST's page is the redirect, which says nothing.
func TestLoginLogsNothingAsked(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{})
	var log enginetest.SyncBuffer
	sessions, err := server.NewSessions(server.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Tokens: tok, Sessions: sessions, Logger: slog.New(slog.NewJSONHandler(&log, nil)),
		Mount:  map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})},
		Public: map[string]http.Handler{"/ui/login": inspector.Login(tok, sessions, nil)}, LoginPath: "/ui/login"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	const next = "https://evil.example/ui/where-ana-went"
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(ts.URL + "/ui/login?next=" + url.QueryEscape(next))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("GET with next %q: %d, want 400", next, res.StatusCode)
	}
	res, err = noRedirect.PostForm(ts.URL+"/ui/login", url.Values{"token": {"ana-secret-1"}, "next": {next}})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/ui/" || strings.Contains(body.String(), "evil") {
		t.Errorf("POST with next %q: %d to %q, body %q; want 303 to /ui/ saying nothing of it", next, res.StatusCode, res.Header.Get("Location"), body.String())
	}
	logged := log.String()
	if strings.Count(logged, `"path":"/ui/login"`) != 2 {
		t.Fatalf("access log has not the two sign-ins:\n%s", logged)
	}
	for _, secret := range []string{"ana-secret-1", "evil.example", "where-ana-went"} {
		if strings.Contains(logged, secret) {
			t.Errorf("access log has %q:\n%s", secret, logged)
		}
	}
}
