package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestHealthzDamagedDatabase: /healthz of mnemo serve answers 503, naming
// the damage, once a request (or the server's start) met a damaged page
// of mnemo.db; before, it answered 200 (its ping misses the page), so a
// load balancer kept sending traffic to a server whose searches fail. A
// sound directory stays 200 before and after the same search. The 503
// carries no Retry-After (walk56 F6): damage does not clear in seconds.
func TestHealthzDamagedDatabase(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		name := map[bool]string{false: "Sound", true: "Damaged"}[damaged]
		t.Run(name, func(t *testing.T) {
			dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
			if damaged {
				path := filepath.Join(dir, engine.DatabaseFile)
				garblePage(t, path, messageLeaf(t, path))
			}
			base, stderr, stop := startServe(t, dir)
			defer stop()
			health := func() (int, string, string) {
				t.Helper()
				resp, err := http.Get(base + "/healthz")
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				var p struct{ Detail string }
				_ = json.Unmarshal(b, &p)
				return resp.StatusCode, p.Detail, resp.Header.Get("Retry-After")
			}
			if code, detail, _ := health(); !damaged && code != http.StatusOK {
				// (On the damaged directory the server's start may already
				// have read the page: either answer is right there.)
				t.Fatalf("healthz before any read: %d %s", code, detail)
			}
			resp, err := http.Post(base+"/v1/search", "application/json", strings.NewReader(`{"resourceId":"r","query":"harbour at dusk"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			code, detail, retry := health()
			want := map[bool]int{false: http.StatusOK, true: http.StatusServiceUnavailable}[damaged]
			if code != want {
				t.Fatalf("healthz after a search (%d): %d %q, want %d\n%s", resp.StatusCode, code, detail, want, stderr.String())
			}
			if damaged && !strings.Contains(detail, "damaged") {
				t.Fatalf("healthz detail %q does not name the damage", detail)
			}
			if retry != "" {
				t.Fatalf("healthz answered Retry-After: %s; damage does not clear by waiting", retry)
			}
		})
	}
}
