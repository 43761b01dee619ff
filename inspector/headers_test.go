package inspector_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestSecurityHeaders: every answer under /ui/ carries the same security
// headers, its pages and error pages, the sign-in and sign-out pages with
// their refusals and redirects, and the server's redirect to the sign-in:
// X-Content-Type-Options: nosniff, a Content-Security-Policy that forbids
// framing and Cache-Control: no-store. Before, /ui/login went out without
// nosniff nor Cache-Control, the refused sign-out without nosniff, and a
// path no page takes (/ui/threads/ana-1/) or a method a page does not
// take got net/http's plain-text answer.
func TestSecurityHeaders(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	cookie := signIn(t, ts, "ana-secret-1")
	form := func(token, next string) string { return url.Values{"token": {token}, "next": {next}}.Encode() }
	for _, c := range []struct {
		name, method, path, auth, body, origin string
		status                                 int
	}{
		{"Index", "GET", "/ui/", "cookie", "", "", 200},
		{"Thread", "GET", "/ui/threads/ana-1", "bearer", "", "", 200},
		{"Run", "GET", "/ui/runs/run-1", "cookie", "", "", 200},
		{"Foreign", "GET", "/ui/threads/bob-1", "cookie", "", "", 404},
		{"BadQuery", "GET", "/ui/?limit=0", "cookie", "", "", 400},
		{"TrailingSlash", "GET", "/ui/threads/ana-1/", "cookie", "", "", 404},
		{"NoPage", "GET", "/ui/nothing/here", "bearer", "", "", 404},
		{"PagePost", "POST", "/ui/threads/ana-1", "bearer", "", "", 405},
		{"ToSignIn", "GET", "/ui/runs/run-1", "", "", "", 303},
		{"Login", "GET", "/ui/login", "", "", "", 200},
		{"LoginBadNext", "GET", "/ui/login?next=/v1/threads", "", "", "", 400},
		{"LoginUnknown", "POST", "/ui/login", "", form("not-a-token", "/ui/"), "", 401},
		{"LoginCrossSite", "POST", "/ui/login", "", form("ana-secret-1", "/ui/"), "https://evil.example", 403},
		{"LoginOK", "POST", "/ui/login", "", form("ana-secret-1", "/ui/"), "", 303},
		{"LoginPut", "PUT", "/ui/login", "", "", "", 405},
		{"LogoutGet", "GET", "/ui/logout", "cookie", "", "", 405},
		{"LogoutCrossSite", "POST", "/ui/logout", "cookie", "", "https://evil.example", 403},
		{"LogoutOK", "POST", "/ui/logout", "cookie", "", "", 303},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Accept", "text/html")
			if c.body != "" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			switch c.auth {
			case "cookie":
				req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
			case "bearer":
				req.Header.Set("Authorization", "Bearer ana-secret-1")
			}
			res, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, res.StatusCode, c.status, b)
			}
			h := res.Header
			if h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("Cache-Control") != "no-store" {
				t.Errorf("%s %s: nosniff %q, CSP %q, Cache-Control %q; want nosniff, a CSP with frame-ancestors 'none', no-store",
					c.method, c.path, h.Get("X-Content-Type-Options"), h.Get("Content-Security-Policy"), h.Get("Cache-Control"))
			}
			if c.status >= 400 && (!strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(string(b), "mnemo inspector")) {
				t.Errorf("%s %s: a %s answer, want the inspector's page: %s", c.method, c.path, h.Get("Content-Type"), b)
			}
		})
	}
}

// TestNotFoundPage: a path under /ui/ that no page takes is answered with
// the inspector's error page, a 404 that names the path and, for a page's
// path with a trailing slash, the page meant; a page's path asked with
// another method is a 405 naming GET and HEAD. Before, both got
// net/http's plain "404 page not found" or "Method Not Allowed".
func TestNotFoundPage(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	status, body := get(t, ts.URL+"/ui/threads/ana-1/", "ana-secret-1")
	if status != 404 || !strings.Contains(body, "<h1><bdi>Not found</bdi></h1>") || !strings.Contains(unwrapped(body), "there is no inspector page at /ui/threads/ana-1/; did you mean /ui/threads/ana-1?") {
		t.Errorf("trailing slash: %d %s", status, body)
	}
	status, body = get(t, ts.URL+"/ui/runs", "ana-secret-1")
	if status != 404 || !strings.Contains(unwrapped(body), "there is no inspector page at /ui/runs<") {
		t.Errorf("/ui/runs: %d %s", status, body)
	}
	req, _ := http.NewRequest("DELETE", ts.URL+"/ui/runs/run-1", nil)
	req.Header.Set("Authorization", "Bearer ana-secret-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 405 || res.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(string(b), "the inspector&#39;s pages take GET and HEAD") {
		t.Errorf("DELETE of a page: %d, Allow %q: %s", res.StatusCode, res.Header.Get("Allow"), b)
	}
}

// TestRefusalProblemHeaders: the 401 problem the server answers under /ui/
// to a client that is no browser (no Accept: text/html, or not a read)
// carries the inspector's security headers, as its redirect to the
// sign-in page does: nosniff, a Content-Security-Policy that forbids
// framing and Cache-Control: no-store. It had nosniff only.
func TestRefusalProblemHeaders(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	for _, c := range []struct{ name, method, path, accept, bearer string }{
		{"NoAccept", "GET", "/ui/", "", ""},
		{"JSON", "GET", "/ui/runs/run-1", "application/json", ""},
		{"HeadNoAccept", "HEAD", "/ui/threads/ana-1", "", ""},
		{"UnknownToken", "GET", "/ui/", "", "not-a-token-1"},
		{"Post", "POST", "/ui/threads/ana-1", "text/html", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, ts.URL+c.path, nil)
			if c.accept != "" {
				req.Header.Set("Accept", c.accept)
			}
			if c.bearer != "" {
				req.Header.Set("Authorization", "Bearer "+c.bearer)
			}
			res, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			h := res.Header
			if got, want := res.StatusCode, http.StatusUnauthorized; got != want {
				t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, got, want, b)
			}
			if got := h.Get("Content-Type"); got != "application/problem+json" {
				t.Errorf("Content-Type %q, want application/problem+json", got)
			}
			if h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("Cache-Control") != "no-store" {
				t.Errorf("nosniff %q, CSP %q, Cache-Control %q; want nosniff, a CSP with frame-ancestors 'none', no-store",
					h.Get("X-Content-Type-Options"), h.Get("Content-Security-Policy"), h.Get("Cache-Control"))
			}
		})
	}
}

// TestNotFoundHintValidIDs: the 404's "did you mean" names a page only when
// its ids could be stored (engine.ValidID, as the pages check them): a
// well-formed id, known or not, is suggested; an id no thread or run can
// have (a space, a letter past ASCII, 129 characters) is not. It named
// "/ui/threads/a b" for "/ui/threads/a%20b/".
func TestNotFoundHintValidIDs(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	long := strings.Repeat("x", 129)
	for _, c := range []struct{ name, path, hint string }{
		{"Known", "/ui/threads/ana-1/", "/ui/threads/ana-1"},
		{"UnknownWellFormed", "/ui/runs/no-such-run:7/", "/ui/runs/no-such-run:7"},
		{"Space", "/ui/threads/a%20b/", ""},
		{"NonASCII", "/ui/runs/caf%C3%A9/", ""},
		{"Question", "/ui/threads/a%3Fb/", ""},
		{"TooLong", "/ui/threads/" + long + "/", ""},
		{"MaxLength", "/ui/threads/" + long[:128] + "/", "/ui/threads/" + long[:128]},
		// ".." is an id; escaped, it is no dot segment: the page is
		// named as sent (it was a 405 to a GET, the path read as
		// /ui/threads/../ and cleaned to the index page's).
		{"DotDot", "/ui/threads/%2e%2e/", "/ui/threads/%2e%2e"},
		{"Dot", "/ui/runs/%2E/", "/ui/runs/%2E"},
		{"EscapedSlash", "/ui/threads/a%2Fb/", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := get(t, ts.URL+c.path, "ana-secret-1")
			body = unwrapped(body)
			if status != http.StatusNotFound {
				t.Fatalf("GET %s: %d, want 404: %s", c.path, status, body)
			}
			switch {
			case c.hint == "" && strings.Contains(body, "did you mean"):
				t.Errorf("GET %s suggests a page no id can have: %s", c.path, body)
			case c.hint != "" && !strings.Contains(body, "; did you mean "+c.hint+"?"):
				t.Errorf("GET %s: no suggestion of %s: %s", c.path, c.hint, body)
			}
		})
	}
}
