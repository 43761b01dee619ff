package server_test

import (
	"net/http"
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestUncleanPathRefused: a path that is not in its canonical form is a
// 400 and nothing is done, not a 307 to the cleaned path. Before
// (readme47), DELETE /v1/threads//messages (a thread id left empty),
// followed to /v1/threads/messages as curl -L and most HTTP libraries
// follow a 307, erased the thread named "messages".
func TestUncleanPathRefused(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/messages/messages", "", map[string]any{"resourceId": "r",
		"messages": []map[string]any{{"role": "user", "content": "a thread named messages"}}}, 200)
	for _, c := range []struct{ method, path string }{
		{"DELETE", "/v1/threads//messages"},
		{"GET", "/v1/threads//messages"},
		{"GET", "/v1/./threads"},
		{"DELETE", "/v1/threads/x/../messages"},
	} {
		req, err := http.NewRequest(c.method, h.ts.URL+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Path = c.path
		resp, err := http.DefaultClient.Do(req) // follows redirects, as curl -L does
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s %s: %d, want 400", c.method, c.path, resp.StatusCode)
		}
	}
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/messages/messages", "", nil, 200)
}
