package server_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestCookieMountUnknown: a CookieMount that is no pattern of Mount is a
// configuration error naming the field, not a cookie that silently
// authenticates nothing.
func TestCookieMountUnknown(t *testing.T) {
	e := enginetest.MustOpen(t, engine.Config{})
	ui := func(*server.Principal) http.Handler { return http.NotFoundHandler() }
	for _, tc := range []struct {
		name, cookie string
		wantErr      bool
	}{
		{"OK", "/ui/", false},
		{"None", "", false},
		{"ErrInvalidConfig", "/v1/", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := server.New(server.Config{Engine: e, Mount: map[string]func(*server.Principal) http.Handler{"/ui/": ui}, CookieMount: tc.cookie})
			if got := errors.Is(err, server.ErrInvalidConfig); got != tc.wantErr {
				t.Fatalf("New with CookieMount %q: %v, want ErrInvalidConfig %v", tc.cookie, err, tc.wantErr)
			}
		})
	}
}

// TestLoginRedirectCookieMount: a browser's GET without a token is sent
// to the sign-in page on CookieMount's pages only; on another mount
// (/mcp) it is the 401 problem, as the cookie the sign-in sets would not
// open it. Before, GET /mcp with Accept: text/html went to
// /ui/login?next=%2Fmcp, which answered 400 "invalid next".
func TestLoginRedirectCookieMount(t *testing.T) {
	page := func(*server.Principal) http.Handler { return http.NotFoundHandler() }
	sessions, err := server.NewSessions(server.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, true, server.Config{
		Sessions:    sessions,
		Mount:       map[string]func(*server.Principal) http.Handler{"/ui/": page, "/mcp": page},
		LoginPath:   "/ui/login",
		CookieMount: "/ui/",
	})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		path, location string
		status         int
	}{
		{"/ui/threads", "/ui/login?next=%2Fui%2Fthreads", http.StatusSeeOther},
		{"/mcp", "", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodGet, h.ts.URL+c.path, nil)
		req.Header.Set("Accept", "text/html,application/xhtml+xml")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Location") != c.location {
			t.Errorf("GET %s (text/html, no token): %d, Location %q; want %d, %q", c.path, resp.StatusCode, resp.Header.Get("Location"), c.status, c.location)
		}
	}
}
