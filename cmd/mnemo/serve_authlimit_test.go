package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestServeAuthLimit: the real mnemo serve on loopback counts failed
// authentications of one client address in one budget across the API,
// /mcp and the inspector's sign-in form: unknown tokens sent to the three
// in turn are refused with 429 and Retry-After after 10 of them (or 11,
// 12 when a second passes meanwhile: a form of a budget of its own would
// take 15, three budgets 30), on each of the three, the form's as its
// page. Before, none was ever refused.
func TestServeAuthLimit(t *testing.T) {
	base, stop := serveOneToken(t)
	defer stop()
	try := func(i int) (*http.Response, string) {
		t.Helper()
		var req *http.Request
		guess := fmt.Sprintf("guess-%08d", i)
		switch i % 3 {
		case 0:
			req, _ = http.NewRequest("GET", base+"/v1/threads", nil)
			req.Header.Set("Authorization", "Bearer "+guess)
		case 1:
			req, _ = http.NewRequest("POST", base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+guess)
		default:
			req, _ = http.NewRequest("POST", base+"/ui/login", strings.NewReader(url.Values{"token": {guess}, "next": {"/ui/"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		res, err := noRedirect().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	first := -1
	refused := map[int]bool{}
	for i := 0; i < 60 && len(refused) < 3; i++ {
		res, body := try(i)
		switch {
		case res.StatusCode == http.StatusUnauthorized && first < 0:
		case res.StatusCode == http.StatusTooManyRequests:
			if first < 0 {
				first = i
			}
			if res.Header.Get("Retry-After") == "" {
				t.Fatalf("try %d: 429 without Retry-After", i)
			}
			if i%3 == 2 && !strings.Contains(body, "Too many failed sign-ins from your address") {
				t.Fatalf("the form's 429: %s", body)
			}
			refused[i%3] = true
		case first >= 0 && res.StatusCode == http.StatusUnauthorized: // a second earned meanwhile
		default:
			t.Fatalf("try %d: %d %s", i, res.StatusCode, body)
		}
	}
	if first < 10 || first > 12 || len(refused) != 3 {
		t.Fatalf("first 429 after %d failures, refused on %v; want after 10 to 12, on the API, /mcp and the form", first, refused)
	}
}
