package inspector_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestLoginChecksToken: a mistyped token on the sign-in page is answered
// there (401, the form again, no cookie); it used to be stored and sent
// the browser round /ui/ back to an unexplained empty form. The sign-in
// page and the inspector's pages cannot be framed (clickjacking).
func TestLoginChecksToken(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(token string) *http.Response {
		res, err := noRedirect.PostForm(ts.URL+"/ui/login", url.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	res := post("ana-secret-2")
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := res.Body.Read(buf)
	b.Write(buf[:n])
	if res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 || !strings.Contains(b.String(), "not in the server") || !strings.Contains(b.String(), "<form") {
		t.Errorf("unknown token: %d cookies %v body %q, want 401, no cookie, the form and why", res.StatusCode, res.Cookies(), b.String())
	}
	res = post("ana-secret-1")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/ui/" || len(res.Cookies()) != 1 || res.Cookies()[0].Name != server.SessionCookie {
		t.Errorf("known token: %d %q cookies %v, want 303 to /ui/ with the token cookie", res.StatusCode, res.Header.Get("Location"), res.Cookies())
	}
	for _, path := range []string{"/ui/login", "/ui/"} {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		req.Header.Set("Authorization", "Bearer ana-secret-1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if csp := res.Header.Get("Content-Security-Policy"); res.StatusCode != 200 || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: %d CSP %q, want frame-ancestors 'none'", path, res.StatusCode, csp)
		}
	}
}

// TestLoginNextAndOrigin: a browser sent to sign in comes back to the page
// it asked for (next, only a path under /ui/: never another site), and a
// sign-in POSTed from another site's page is refused (login CSRF).
func TestLoginNextAndOrigin(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// A page needing a token sends the browser to sign in with next.
	req, _ := http.NewRequest("GET", ts.URL+"/ui/threads/ana-1?x=1", nil)
	req.Header.Set("Accept", "text/html")
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || loc != "/ui/login?next="+url.QueryEscape("/ui/threads/ana-1?x=1") {
		t.Fatalf("no token: %d to %q, want 303 to the sign-in with next", res.StatusCode, loc)
	}
	code, body := get(t, ts.URL+loc, "")
	if code != 200 || !strings.Contains(body, `name="next" value="/ui/threads/ana-1?x=1"`) {
		t.Fatalf("sign-in page: %d, no next field in %q", code, body)
	}
	post := func(next, origin, site string) *http.Response {
		req, _ := http.NewRequest("POST", ts.URL+"/ui/login", strings.NewReader(url.Values{"token": {"ana-secret-1"}, "next": {next}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	for next, want := range map[string]string{
		"/ui/threads/ana-1?x=1": "/ui/threads/ana-1?x=1",
		"":                      "/ui/",
		"https://evil.example/": "/ui/",
		"//evil.example/ui/":    "/ui/",
		"/\\evil.example":       "/ui/",
		"/ui/\\evil":            "/ui/",
		"/ui/\r\nSet-Cookie: x": "/ui/",
		"/v1/threads":           "/ui/",
		"javascript:alert(1)":   "/ui/",
		"/ui/../v1/threads":     "/ui/",
		"/ui/%2e%2e/v1/threads": "/ui/",
		"/ui/./threads/ana-1":   "/ui/",
		// http.Redirect cleans the path with the fragment in it: this
		// went to /v1/threads.
		"/ui/x#/../../v1/threads":                   "/ui/",
		"/ui/x#/../../../evil.example":              "/ui/",
		"/ui/runs/run-1?without=recalled#/../../v1": "/ui/runs/run-1?without=recalled#/../../v1",
	} {
		res := post(next, ts.URL, "same-origin")
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want || len(res.Cookies()) != 1 {
			t.Errorf("next %q: %d to %q, want 303 to %q with the cookie", next, res.StatusCode, res.Header.Get("Location"), want)
		}
	}
	for _, c := range []struct{ origin, site string }{{"https://evil.example", ""}, {"null", ""}, {"", "cross-site"}, {"http://127.0.0.1:1", ""}, {ts.URL + ".evil.example", ""}} {
		if res := post("/ui/", c.origin, c.site); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
			t.Errorf("origin %q site %q: %d cookies %v, want 403 and no cookie", c.origin, c.site, res.StatusCode, res.Cookies())
		}
	}
	if res := post("/ui/", "", ""); res.StatusCode != http.StatusSeeOther {
		t.Errorf("no Origin (curl): %d, want 303", res.StatusCode)
	}
}

// TestLoginQuery: the sign-in page reads its query as the other pages do
// (server.CheckQuery): an unknown, repeated or empty parameter is a 400
// naming it; and next, the page to go to after, must be a path of the
// inspector (under /ui/, no scheme or host, no backslash, no dot
// segment): anything else is a 400 naming next, never a form that sends
// the browser there. Before, each was a 200 (an unknown or repeated
// parameter ignored, another site's next dropped silently, /ui/../v1/…
// kept and followed out of the inspector).
func TestLoginQuery(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	for _, c := range []struct{ query, name string }{
		{"nxt=%2Fui%2F", "nxt"},
		{"next=%2Fui%2F&next=%2Fui%2Fthreads%2Fana-1", "next"},
		{"next=", "next"},
		{"next=%2Fui%2F;x=1", "malformed"},
		{"next=https%3A%2F%2Fevil.example%2Fui%2F", "next"},
		{"next=%2F%2Fevil.example%2Fui%2F", "next"},
		{"next=%2F%5Cevil.example", "next"},
		{"next=%2Fui%2F%5C%5Cevil.example", "next"},
		{"next=javascript%3Aalert(1)", "next"},
		{"next=%2Fv1%2Fthreads", "next"},
		{"next=%2Fui%2F..%2Fv1%2Fthreads", "next"},
		{"next=%2Fui%2F%252e%252e%2Fv1%2Fthreads", "next"},
		{"next=%2Fui%2F.%2Fthreads", "next"},
		{"next=%2Fui%2F%0D%0ASet-Cookie%3A+x", "next"},
		{"next=%2Fui%2Fx%23%2F..%2F..%2Fv1%2Fthreads", "next"},
	} {
		code, body := get(t, ts.URL+"/ui/login?"+c.query, "")
		if code != http.StatusBadRequest || !strings.Contains(body, `role="alert"`) || !strings.Contains(body, c.name) || !strings.Contains(body, `name="next" value="/ui/"`) {
			t.Errorf("?%s: %d, want 400 and the form naming %s, next /ui/:\n%.600s", c.query, code, c.name, body)
		}
	}
	for query, next := range map[string]string{
		"":                                     "/ui/",
		"next=%2Fui%2F":                        "/ui/",
		"next=%2Fui%2Fthreads%2Fana-1%3Fx%3D1": "/ui/threads/ana-1?x=1",
		"next=%2Fui%2Fruns%2Frun-1%3Fwithout%3Drecalled%23replay": "/ui/runs/run-1?without=recalled#replay",
	} {
		code, body := get(t, ts.URL+"/ui/login?"+query, "")
		if code != http.StatusOK || !strings.Contains(body, `name="next" value="`+html.EscapeString(next)+`"`) {
			t.Errorf("?%s: %d, want 200 and the form with next %q:\n%.600s", query, code, next, body)
		}
	}
}
