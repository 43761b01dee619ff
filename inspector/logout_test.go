package inspector_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/server"
)

const signOutForm = `<form class="signout" method="post" action="/ui/logout">`

// TestLogout: a browser signed in by the cookie can sign out, on the real
// HTTP server on loopback: every page it is shown has the sign-out
// button, whose POST expires the cookie and sends it to the sign-in page;
// the next page asks it to sign in again. A sign-out posted from another
// site is refused and the cookie stays; a GET never signs out. Before,
// nothing ended a sign-in but the cookie's 12 hours.
func TestLogout(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	if !strings.HasPrefix(ts.URL, "http://127.0.0.1:") {
		t.Fatalf("served on %s, want loopback", ts.URL)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path, origin string) (*http.Response, string) {
		t.Helper()
		var body io.Reader
		if method == "POST" && path == "/ui/login" {
			body = strings.NewReader(url.Values{"token": {"ana-secret-1"}, "next": {"/ui/"}}.Encode())
		}
		req, _ := http.NewRequest(method, ts.URL+path, body)
		req.Header.Set("Accept", "text/html")
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	if res, _ := do("POST", "/ui/login", ts.URL); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d, want 303", res.StatusCode)
	}
	for _, path := range []string{"/ui/", "/ui/threads/ana-1", "/ui/runs/run-1", "/ui/threads/bob-1"} {
		res, body := do("GET", path, "")
		if res.StatusCode != 200 && res.StatusCode != 404 || !strings.Contains(body, signOutForm) || !strings.Contains(body, ">Sign out</button>") {
			t.Errorf("GET %s signed in by the cookie: %d, want the sign-out button in %q", path, res.StatusCode, body)
		}
	}

	t.Run("NotByBearer", func(t *testing.T) {
		// A bearer token is the client's to forget: no button.
		if status, body := get(t, ts.URL+"/ui/", "ana-secret-1"); status != 200 || strings.Contains(body, signOutForm) {
			t.Errorf("GET /ui/ with the bearer token: %d, sign-out button %v, want 200 and none", status, strings.Contains(body, signOutForm))
		}
	})
	t.Run("NoTokenFile", func(t *testing.T) {
		_, open := seed(t, nil)
		req, _ := http.NewRequest("GET", open.URL+"/ui/", nil)
		req.AddCookie(&http.Cookie{Name: server.SessionCookie, Value: "any-session-id"})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || strings.Contains(string(b), signOutForm) {
			t.Errorf("a server without a token file: %d, sign-out button %v, want 200 and none", res.StatusCode, strings.Contains(string(b), signOutForm))
		}
	})
	t.Run("ErrCrossSite", func(t *testing.T) {
		for _, c := range []struct{ origin, site string }{{"https://evil.example", ""}, {"", "cross-site"}} {
			req, _ := http.NewRequest("POST", ts.URL+inspector.LogoutPath, nil)
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			if c.site != "" {
				req.Header.Set("Sec-Fetch-Site", c.site)
			}
			res, err := browser.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 || !strings.Contains(string(b), "still signed in") {
				t.Errorf("sign-out from %q %q: %d cookies %v, want 403, no cookie, and why", c.origin, c.site, res.StatusCode, res.Cookies())
			}
		}
		if res, body := do("GET", "/ui/", ""); res.StatusCode != 200 || !strings.Contains(body, signOutForm) {
			t.Errorf("after a cross-site sign-out: %d, want still signed in", res.StatusCode)
		}
	})
	t.Run("ErrGet", func(t *testing.T) {
		res, _ := do("GET", inspector.LogoutPath, "")
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "POST" || len(res.Cookies()) != 0 {
			t.Errorf("GET %s: %d Allow %q cookies %v, want 405 Allow POST, no cookie", inspector.LogoutPath, res.StatusCode, res.Header.Get("Allow"), res.Cookies())
		}
	})

	res, _ := do("POST", inspector.LogoutPath, ts.URL)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/ui/login" {
		t.Fatalf("sign-out: %d to %q, want 303 to /ui/login", res.StatusCode, res.Header.Get("Location"))
	}
	cookies := res.Cookies()
	if len(cookies) != 1 || cookies[0].Name != server.SessionCookie || cookies[0].Value != "" || cookies[0].MaxAge >= 0 || cookies[0].Path != "/ui/" || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("sign-out cookies %v, want the token cookie emptied with Max-Age=0, Path /ui/, HttpOnly, SameSite=Strict", cookies)
	}
	if res, body := do("GET", "/ui/login", ""); res.StatusCode != 200 || !strings.Contains(body, `name="token"`) || strings.Contains(body, signOutForm) {
		t.Errorf("after the sign-out, the sign-in page: %d", res.StatusCode)
	}
	if res, _ := do("GET", "/ui/threads/ana-1", ""); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/ui/login?next=") {
		t.Errorf("a page after the sign-out: %d to %q, want 303 to the sign-in", res.StatusCode, res.Header.Get("Location"))
	}
}
