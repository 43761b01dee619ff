package inspector_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestDotIDLinks: a thread or run whose id is "." or ".." (engine.ValidID
// takes both) is linked with its dots escaped, and the link opens its
// page. The link was /ui/threads/.., which a browser resolves to /ui/.
func TestDotIDLinks(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ts := seed(t, tok)
	ctx := context.Background()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "..", ResourceID: "ana", Messages: []engine.Message{{Role: "user", Content: "a thread named dot dot"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: ".", ThreadID: "..", RecentN: 2}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ page, link, want string }{
		{"/ui/", `href="/ui/threads/%2E%2E"`, "a thread named dot dot"},
		{"/ui/threads/%2E%2E", `href="/ui/runs/%2E"`, "recent"},
		{"/ui/runs/%2E", `href="/ui/threads/%2E%2E"`, "a thread named dot dot"},
	} {
		status, body := get(t, ts.URL+c.page, "ana-secret-1")
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d: %s", c.page, status, body)
		}
		if !strings.Contains(body, c.link) {
			t.Errorf("GET %s: no link %s", c.page, c.link)
			continue
		}
		href := strings.TrimSuffix(strings.TrimPrefix(c.link, `href="`), `"`)
		status, body = get(t, ts.URL+href, "ana-secret-1")
		if status != http.StatusOK || !strings.Contains(body, c.want) {
			t.Errorf("GET %s (linked from %s): %d, want 200 with %q: %s", href, c.page, status, c.want, body)
		}
	}
}
