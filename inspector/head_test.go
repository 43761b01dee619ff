package inspector_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestHeadAsGet: a HEAD of an inspector page is answered as its GET,
// without the body: the same status, Location and Content-Type, whether
// signed in by the cookie, by the bearer token or not at all. HEAD /ui/
// with a valid cookie was a 401 (the cookie opened GET only) while its
// GET was a 200, and HEAD /ui/login a 405.
func TestHeadAsGet(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	session := signIn(t, ts, "ana-secret-1")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path, auth string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, ts.URL+path, nil)
		req.Header.Set("Accept", "text/html")
		switch auth {
		case "cookie":
			req.AddCookie(session)
		case "bearer":
			req.Header.Set("Authorization", "Bearer ana-secret-1")
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	for _, c := range []struct {
		path, auth string
		want       int
	}{
		{"/ui/", "cookie", 200},
		{"/ui/threads/ana-1", "cookie", 200},
		{"/ui/runs/run-1?without=recalled", "cookie", 200},
		{"/ui/threads/bob-1", "cookie", 404},
		{"/ui/?limit=0", "cookie", 400},
		{"/ui/", "bearer", 200},
		{"/ui/runs/run-1", "", 303},
		{"/ui/login", "", 200},
		{"/ui/login?next=/v1/threads", "", 400},
		{"/ui/logout", "cookie", 405},
	} {
		t.Run(c.auth+c.path, func(t *testing.T) {
			get, _ := do("GET", c.path, c.auth)
			head, body := do("HEAD", c.path, c.auth)
			if get.StatusCode != c.want {
				t.Fatalf("GET %s: %d, want %d", c.path, get.StatusCode, c.want)
			}
			if head.StatusCode != get.StatusCode || head.Header.Get("Location") != get.Header.Get("Location") || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") || len(body) != 0 {
				t.Errorf("HEAD %s: %d %q %q with %d bytes of body, want GET's %d %q %q and none", c.path, head.StatusCode, head.Header.Get("Location"), head.Header.Get("Content-Type"), len(body),
					get.StatusCode, get.Header.Get("Location"), get.Header.Get("Content-Type"))
			}
		})
	}
}
