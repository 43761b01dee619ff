package inspector_test

import (
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
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/ui/" || len(res.Cookies()) != 1 || res.Cookies()[0].Name != server.TokenCookie {
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
