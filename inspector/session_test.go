package inspector_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/server"
)

// noFollow is a client that returns a redirect instead of following it.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// signIn posts token to the sign-in page of ts, as the form does, and
// returns the session cookie it sets.
func signIn(t *testing.T, ts *httptest.Server, token string) *http.Cookie {
	t.Helper()
	res, err := noFollow.PostForm(ts.URL+inspector.LoginPath, url.Values{"token": {token}, "next": {"/ui/"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie && c.MaxAge > 0 {
			return c
		}
	}
	t.Fatalf("sign-in with %q: %d cookies %v, want the session cookie", token, res.StatusCode, res.Cookies())
	return nil
}

// getWith GETs path of ts sending cookie (none when nil) and returns the
// status and Location. html sends Accept: text/html, as a browser does.
func getWith(t *testing.T, ts *httptest.Server, path string, cookie *http.Cookie, html bool) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+path, nil)
	if cookie != nil {
		req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
	}
	if html {
		req.Header.Set("Accept", "text/html")
	}
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

// signOut posts the sign-out of ts from its own page with cookie.
func signOut(t *testing.T, ts *httptest.Server, cookie *http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+inspector.LogoutPath, nil)
	req.Header.Set("Origin", ts.URL)
	req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d, want 303", res.StatusCode)
	}
}

func anaTokens(t *testing.T) *server.Tokens {
	t.Helper()
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"name":"ana","token":"ana-secret-1","resources":["ana"]},{"name":"bob","token":"bob-secret-1","resources":["bob"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestSessionCookieNotToken: the sign-in cookie holds a random session id
// (256 bits, base64url), not the bearer token nor anything containing it,
// a new one at each sign-in; a cookie holding the token itself (what the
// sign-in set before) authenticates nothing. Before, the cookie's value
// was the token: a copy of it was the token.
func TestSessionCookieNotToken(t *testing.T) {
	_, ts := seed(t, anaTokens(t))
	a, b := signIn(t, ts, "ana-secret-1"), signIn(t, ts, "ana-secret-1")
	for _, c := range []*http.Cookie{a, b} {
		raw, err := base64.RawURLEncoding.DecodeString(c.Value)
		if strings.Contains(c.Value, "ana-secret-1") || err != nil || len(raw) != server.SessionIDBytes {
			t.Errorf("cookie value %q: want %d random bytes in base64url, not the token (%v)", c.Value, server.SessionIDBytes, err)
		}
	}
	if a.Value == b.Value {
		t.Errorf("two sign-ins got one session id %q", a.Value)
	}
	if status, _ := getWith(t, ts, "/ui/threads/ana-1", a, false); status != 200 {
		t.Errorf("GET with the session cookie: %d, want 200", status)
	}
	token := &http.Cookie{Name: server.SessionCookie, Value: "ana-secret-1"}
	if status, _ := getWith(t, ts, "/ui/threads/ana-1", token, false); status != http.StatusUnauthorized {
		t.Errorf("GET with the token as the cookie: %d, want 401", status)
	}
}

// TestSessionReplayAfterSignOut: a copy of the cookie taken before the
// sign-out is refused after it, as a request without a cookie is (a 401,
// or for a browser the redirect to the sign-in page); another sign-in of
// the same token is not ended with it. Before, the sign-out only expired
// the browser's copy and a replayed one still read the pages.
func TestSessionReplayAfterSignOut(t *testing.T) {
	_, ts := seed(t, anaTokens(t))
	copied, other := signIn(t, ts, "ana-secret-1"), signIn(t, ts, "ana-secret-1")
	if status, _ := getWith(t, ts, "/ui/", copied, false); status != 200 {
		t.Fatalf("before the sign-out: %d, want 200", status)
	}
	signOut(t, ts, copied)
	if status, _ := getWith(t, ts, "/ui/threads/ana-1", copied, false); status != http.StatusUnauthorized {
		t.Errorf("the copy after the sign-out: %d, want 401", status)
	}
	if status, loc := getWith(t, ts, "/ui/threads/ana-1", copied, true); status != http.StatusSeeOther || !strings.HasPrefix(loc, inspector.LoginPath+"?next=") {
		t.Errorf("the copy after the sign-out, from a browser: %d to %q, want 303 to the sign-in", status, loc)
	}
	if status, _ := getWith(t, ts, "/ui/threads/ana-1", other, false); status != 200 {
		t.Errorf("another sign-in of the token after the sign-out: %d, want 200", status)
	}
}

// TestSessionSignInAgain: a sign-in from a browser already signed in
// (its cookie sent) ends the earlier session, whose cookie the new one
// replaces: a copy of the earlier cookie is refused after. Before, the
// earlier session lived on, unreachable by the browser, for its 12 hours.
func TestSessionSignInAgain(t *testing.T) {
	_, ts := seed(t, anaTokens(t))
	first := signIn(t, ts, "ana-secret-1")
	req, _ := http.NewRequest("POST", ts.URL+inspector.LoginPath, strings.NewReader(url.Values{"token": {"ana-secret-1"}, "next": {"/ui/"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	req.AddCookie(&http.Cookie{Name: first.Name, Value: first.Value})
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(res.Cookies()) != 1 || res.Cookies()[0].Value == first.Value {
		t.Fatalf("second sign-in: %d cookies %v, want a new session cookie", res.StatusCode, res.Cookies())
	}
	if status, _ := getWith(t, ts, "/ui/", first, false); status != http.StatusUnauthorized {
		t.Errorf("the first sign-in's cookie after the second: %d, want 401", status)
	}
	if status, _ := getWith(t, ts, "/ui/", res.Cookies()[0], false); status != 200 {
		t.Errorf("the second sign-in's cookie: %d, want 200", status)
	}
}

// clock is a settable time for the session store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// TestSessionExpired: a session lasts its TTL (12 hours, the cookie's
// Max-Age) from the sign-in, used or not, and its cookie is refused after.
func TestSessionExpired(t *testing.T) {
	clk := &clock{t: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)}
	_, ts := seedSessions(t, anaTokens(t), server.SessionOptions{Now: clk.now})
	c := signIn(t, ts, "ana-secret-1")
	if got, want := c.MaxAge, int(server.DefaultSessionTTL/time.Second); got != want {
		t.Errorf("cookie Max-Age %d, want %d", got, want)
	}
	clk.add(server.DefaultSessionTTL - time.Second)
	if status, _ := getWith(t, ts, "/ui/", c, false); status != 200 {
		t.Errorf("a second before expiry: %d, want 200", status)
	}
	clk.add(time.Second)
	if status, _ := getWith(t, ts, "/ui/", c, false); status != http.StatusUnauthorized {
		t.Errorf("at expiry: %d, want 401", status)
	}
}

// TestSessionPerTokenCap: a token holds at most DefaultSessionsPerToken
// sessions; the sign-in beyond ends its oldest, and no other token's.
func TestSessionPerTokenCap(t *testing.T) {
	_, ts := seed(t, anaTokens(t))
	bob := signIn(t, ts, "bob-secret-1")
	var ana []*http.Cookie
	for range server.DefaultSessionsPerToken + 1 {
		ana = append(ana, signIn(t, ts, "ana-secret-1"))
	}
	if status, _ := getWith(t, ts, "/ui/", ana[0], false); status != http.StatusUnauthorized {
		t.Errorf("the oldest of %d sign-ins: %d, want 401", len(ana), status)
	}
	for _, i := range []int{1, len(ana) - 1} {
		if status, _ := getWith(t, ts, "/ui/", ana[i], false); status != 200 {
			t.Errorf("sign-in %d of %d: %d, want 200", i, len(ana), status)
		}
	}
	if status, _ := getWith(t, ts, "/ui/", bob, false); status != 200 {
		t.Errorf("another token's session: %d, want 200", status)
	}
}

// TestSessionTenant: a session reads what its token may: bob's session
// gets a 404 for ana's thread and run, as for ones that do not exist, and
// its index lists no thread of ana's.
func TestSessionTenant(t *testing.T) {
	_, ts := seed(t, anaTokens(t))
	bob := signIn(t, ts, "bob-secret-1")
	for path, want := range map[string]int{"/ui/threads/bob-1": 200, "/ui/threads/ana-1": 404, "/ui/runs/run-1": 404} {
		if status, _ := getWith(t, ts, path, bob, false); status != want {
			t.Errorf("GET %s with bob's session: %d, want %d", path, status, want)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/ui/", nil)
	req.AddCookie(&http.Cookie{Name: bob.Name, Value: bob.Value})
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(b), "bob-1") || strings.Contains(string(b), "ana-1") {
		t.Errorf("index with bob's session: %d, want bob-1 and not ana-1", res.StatusCode)
	}
}
