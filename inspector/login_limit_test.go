package inspector_test

import (
	"fmt"
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

// TestLoginLimit: the sign-in form counts its failures in the limiter it
// is given: after 10 unknown tokens from one address, a sign-in from it is
// the form with a 429, Retry-After and a message saying when to try
// again, the right token too (its token not checked, so a right guess
// does not show), and sets no cookie; a second later one attempt more is
// taken, and the right token signs in. Before, the form took guesses
// without limit.
func TestLoginLimit(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := server.NewSessions(server.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Date(2026, 12, 4, 17, 0, 0, 0, time.UTC)
	limiter, err := server.NewAuthLimiter(server.AuthLimitOptions{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(inspector.Login(tok, sessions, limiter))
	t.Cleanup(ts.Close)
	signIn := func(token string) (*http.Response, string) {
		t.Helper()
		res, err := noFollow.PostForm(ts.URL+inspector.LoginPath, url.Values{"token": {token}, "next": {"/ui/"}})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	for i := range 10 {
		if res, _ := signIn(fmt.Sprintf("guess-%04d", i)); res.StatusCode != 401 {
			t.Fatalf("failure %d: %d, want 401", i+1, res.StatusCode)
		}
	}
	for _, token := range []string{"guess-0010", "ana-secret-1"} {
		res, body := signIn(token)
		if res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" || len(res.Cookies()) != 0 || !strings.Contains(body, "Too many failed sign-ins from your address: try again in 1 second.") || !strings.Contains(body, "<form") {
			t.Fatalf("%s over the limit: %d, Retry-After %q, cookies %v: %s", token, res.StatusCode, res.Header.Get("Retry-After"), res.Cookies(), body)
		}
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if res, _ := signIn("ana-secret-1"); res.StatusCode != 303 || len(res.Cookies()) != 1 {
		t.Fatalf("a second later, the right token: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	if limiter.Failures() != 10 || limiter.Refused() != 2 {
		t.Fatalf("failures %d, refused %d; want 10, 2", limiter.Failures(), limiter.Refused())
	}
}
