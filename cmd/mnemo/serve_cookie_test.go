package main

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeCookieScope: the inspector's sign-in cookie (Path /ui/)
// authenticates GET requests of the inspector only; the API and /mcp need
// the bearer token. Before, the cookie authenticated every GET: `curl -b
// jar …/v1/threads` was a 200 though the README (now docs/serve.md) says the cookie is the
// inspector's.
func TestServeCookieScope(t *testing.T) {
	base, stop := serveOneToken(t)
	defer stop()

	res, err := noRedirect().PostForm(base+"/ui/login", url.Values{"token": {"app-secret-1"}, "next": {"/ui/"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "mnemo_token" {
			cookie = c
		}
	}
	if cookie == nil || cookie.Path != "/ui/" || strings.Contains(cookie.Value, "app-secret-1") {
		t.Fatalf("sign-in: %d cookie %v, want the session cookie with Path /ui/, not the token", res.StatusCode, cookie)
	}
	for _, tc := range []struct {
		name, path     string
		cookie, bearer bool
		want           int
	}{
		{"CookieUI", "/ui/", true, false, 200},
		{"CookieAPI", "/v1/threads", true, false, 401},
		{"CookieMCP", "/mcp", true, false, 401},
		{"BearerAPI", "/v1/threads", false, true, 200},
		{"NoneUI", "/ui/", false, false, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", base+tc.path, nil)
			if tc.cookie {
				// Sent whatever its Path: curl -b sends it so.
				req.Header.Set("Cookie", "mnemo_token="+cookie.Value)
			}
			if tc.bearer {
				req.Header.Set("Authorization", "Bearer app-secret-1")
			}
			res, err := noRedirect().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("GET %s: %d, want %d", tc.path, res.StatusCode, tc.want)
			}
		})
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("served on %s, want loopback", base)
	}
}

// TestServeSignOut: mnemo serve mounts the inspector's sign-out at
// /ui/logout: a POST from its own pages ends the sign-in's session, expires
// the cookie and goes to the sign-in page, and a copy of the cookie taken
// before is refused after (401). Before, the cookie held the token: the
// sign-out expired the browser's copy only, and a copy read the pages
// until the token left the token file.
func TestServeSignOut(t *testing.T) {
	base, stop := serveOneToken(t)
	defer stop()
	cookie := serveSignIn(t, base)
	if got := serveGetUI(t, base, cookie); got != http.StatusOK {
		t.Fatalf("GET /ui/ signed in: %d, want 200", got)
	}
	req, _ := http.NewRequest("POST", base+"/ui/logout", nil)
	req.Header.Set("Origin", base)
	req.Header.Set("Cookie", "mnemo_token="+cookie)
	res, err := noRedirect().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cookies := res.Cookies()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/ui/login" || len(cookies) != 1 || cookies[0].Name != "mnemo_token" || cookies[0].MaxAge >= 0 || cookies[0].Path != "/ui/" {
		t.Errorf("POST /ui/logout: %d to %q cookies %v, want 303 to /ui/login expiring the token cookie", res.StatusCode, res.Header.Get("Location"), cookies)
	}
	if got := serveGetUI(t, base, cookie); got != http.StatusUnauthorized {
		t.Errorf("GET /ui/ with a copy of the cookie after the sign-out: %d, want 401", got)
	}
}

// TestServeRestartEndsSessions: the sign-in sessions live in the serving
// process: after a restart of mnemo serve on the same data directory and
// token file, a cookie of the previous process is refused (docs/serve.md, "The
// inspector").
func TestServeRestartEndsSessions(t *testing.T) {
	dir, tokens := filepath.Join(t.TempDir(), "data"), oneTokenFile(t)
	base, _, stop := startServe(t, dir, "--tokens", tokens)
	cookie := serveSignIn(t, base)
	if got := serveGetUI(t, base, cookie); got != http.StatusOK {
		t.Fatalf("GET /ui/ signed in: %d, want 200", got)
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	base, _, stop = startServe(t, dir, "--tokens", tokens)
	defer stop()
	if got := serveGetUI(t, base, cookie); got != http.StatusUnauthorized {
		t.Errorf("GET /ui/ with the cookie after a restart: %d, want 401", got)
	}
}

// serveSignIn signs in to the mnemo serve at base with app-secret-1 and
// returns the session cookie's value, checking it is not the token.
func serveSignIn(t *testing.T, base string) string {
	t.Helper()
	res, err := noRedirect().PostForm(base+"/ui/login", url.Values{"token": {"app-secret-1"}, "next": {"/ui/"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == "mnemo_token" && c.Value != "" {
			if strings.Contains(c.Value, "app-secret-1") {
				t.Fatalf("the sign-in cookie holds the token: %q", c.Value)
			}
			return c.Value
		}
	}
	t.Fatalf("sign-in: %d cookies %v, want the session cookie", res.StatusCode, res.Cookies())
	return ""
}

// serveGetUI is the status of GET /ui/ at base with the sign-in cookie
// value cookie (no Accept: text/html, so a 401 rather than a redirect).
func serveGetUI(t *testing.T, base, cookie string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/ui/", nil)
	req.Header.Set("Cookie", "mnemo_token="+cookie)
	res, err := noRedirect().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestServeCookieSecure: on the real mnemo serve on loopback, the sign-in
// and sign-out cookies are not Secure for a browser on this machine
// (Host 127.0.0.1, localhost, plain HTTP: a Secure cookie there is one a
// browser may not keep, signing nobody in) and Secure for a request a
// TLS-terminating proxy on this machine passes with its own Host. Before,
// Secure followed r.TLS, which mnemo serve never has: the cookie was
// never Secure behind the proxy and went back over plain HTTP.
func TestServeCookieSecure(t *testing.T) {
	base, stop := serveOneToken(t)
	defer stop()
	port := base[strings.LastIndex(base, ":")+1:]
	for _, tc := range []struct {
		name, host, origin string
		secure             bool
	}{
		{"Loopback127", "127.0.0.1:" + port, "http://127.0.0.1:" + port, false},
		{"Localhost", "localhost:" + port, "http://localhost:" + port, false},
		{"BehindProxy", "mnemo.example.com", "https://mnemo.example.com", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, step := range []struct{ path, body string }{
				{"/ui/login", url.Values{"token": {"app-secret-1"}, "next": {"/ui/"}}.Encode()},
				{"/ui/logout", ""},
			} {
				req, _ := http.NewRequest("POST", base+step.path, strings.NewReader(step.body))
				req.Host = tc.host
				req.Header.Set("Origin", tc.origin)
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Cookie", "mnemo_token=app-secret-1")
				res, err := noRedirect().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				cookies := res.Cookies()
				if res.StatusCode != http.StatusSeeOther || len(cookies) != 1 || cookies[0].Name != "mnemo_token" {
					t.Fatalf("POST %s (Host %s): %d cookies %v, want 303 setting the token cookie", step.path, tc.host, res.StatusCode, cookies)
				}
				if cookies[0].Secure != tc.secure {
					t.Errorf("POST %s (Host %s): cookie Secure %v, want %v", step.path, tc.host, cookies[0].Secure, tc.secure)
				}
			}
		})
	}
}

// serveOneToken starts mnemo serve on loopback with a token file of one
// token, "app-secret-1" for resource r1; stop ends it and returns its
// exit status.
func serveOneToken(t *testing.T) (base string, stop func() int) {
	t.Helper()
	base, _, stop = startServe(t, filepath.Join(t.TempDir(), "data"), "--tokens", oneTokenFile(t))
	return base, stop
}

// oneTokenFile writes a token file of one token, "app-secret-1" for
// resource r1, and returns its path.
func oneTokenFile(t *testing.T) string {
	t.Helper()
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(tokens, []byte(`{"tokens":[{"name":"app","token":"app-secret-1","resources":["r1"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return tokens
}

// noRedirect is a client that returns a redirect instead of following it.
func noRedirect() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
