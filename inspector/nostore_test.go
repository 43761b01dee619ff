package inspector_test

import (
	"net/http"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestPagesNoStore: every page of the inspector, and its error pages, is
// sent Cache-Control: no-store, signed in by the cookie or by the bearer
// token: a page holds a tenant's memory, and a browser (or a proxy)
// kept a copy of it in its HTTP cache to show again, on a shared machine
// after the sign-out. Before, the pages had no Cache-Control.
func TestPagesNoStore(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	cookie := signIn(t, ts, "ana-secret-1")
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/ui/", 200}, {"/ui/threads/ana-1", 200}, {"/ui/runs/run-1", 200}, {"/ui/runs/run-1?without=recalled", 200},
		{"/ui/threads/bob-1", 404}, {"/ui/?limit=0", 400},
	} {
		for _, how := range []string{"cookie", "bearer"} {
			req, _ := http.NewRequest("GET", ts.URL+c.path, nil)
			if how == "cookie" {
				req.AddCookie(cookie)
			} else {
				req.Header.Set("Authorization", "Bearer ana-secret-1")
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.status || res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s by %s: %d, Cache-Control %q; want %d, no-store", c.path, how, res.StatusCode, res.Header.Get("Cache-Control"), c.status)
			}
		}
	}
}
