package inspector_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/legacyid"
	"github.com/mnemo-go/mnemo/server"
)

// TestDotIDLinks: a thread or run whose id is "." or ".." (stored before
// engine.ValidNewID refused them; here through legacyid.Allow) is shown
// without a link, with a note saying why, and its page still answers a
// client that sends the path as written. Its links were /ui/threads/..
// and then /ui/threads/%2E%2E, which a browser resolves alike to /ui/.
func TestDotIDLinks(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ts := seed(t, tok)
	legacyid.Allow(e)
	ctx := context.Background()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "..", ResourceID: "ana", Messages: []engine.Message{{Role: "user", Content: "a thread named dot dot"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: ".", ThreadID: "..", RecentN: 2}); err != nil {
		t.Fatal(err)
	}
	dotLink := regexp.MustCompile(`href="/ui/(threads|runs)/(\.|%2[eE])`)
	for _, c := range []struct{ page, id, want string }{
		{"/ui/", "..", "ana-1"},
		{"/ui/threads/%2E%2E", ".", "recent"},
		{"/ui/runs/%2E", "..", "a thread named dot dot"},
	} {
		status, body := get(t, ts.URL+c.page, "ana-secret-1")
		if status != http.StatusOK || !strings.Contains(body, c.want) {
			t.Fatalf("GET %s: %d, want 200 with %q: %s", c.page, status, c.want, body)
		}
		if m := dotLink.FindString(body); m != "" {
			t.Errorf("GET %s: links a dot id: %s", c.page, m)
		}
		if note := "<bdi>" + c.id + "</bdi> <span class=\"meta\">(not linked: a browser reads “" + c.id + "”"; !strings.Contains(body, note) {
			t.Errorf("GET %s: no %s without a link, with its note", c.page, c.id)
		}
	}
}
