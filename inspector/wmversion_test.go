package inspector_test

import (
	"strings"
	"testing"
)

// TestRunWorkingMemoryVersion: the run page names the working-memory
// version the run rendered (seed's run-1 rendered version 2 of ana-1's
// state) beside its size.
func TestRunWorkingMemoryVersion(t *testing.T) {
	_, ts := seed(t, nil)
	code, body := get(t, ts.URL+"/ui/runs/run-1", "")
	page := unwrapped(body)
	i := strings.Index(page, `<div class="item working-memory">`)
	if code != 200 || i < 0 {
		t.Fatalf("run page: %d, no working-memory item", code)
	}
	item, _, _ := strings.Cut(page[i:], "</div>")
	if !strings.Contains(item, `<span class="meta">v2 · `) {
		t.Errorf("the working-memory item does not name v2: %s", item)
	}
}
