package inspector_test

import (
	"strings"
	"testing"
)

// TestRunWithoutWorkingMemory: the run page leaves the working memory out
// for ?without=working-memory, the name `mnemo replay --without` takes and
// the page's own link now uses, and for the old spelling workingMemory;
// the two spellings together are one part given twice (400). Before, the
// page took workingMemory only and the CLI working-memory only.
func TestRunWithoutWorkingMemory(t *testing.T) {
	_, ts := seed(t, nil)
	for _, c := range []struct {
		query string
		code  int
		want  string
	}{
		{"without=working-memory", 200, `class="pill on" href="?without=working-memory#replay"`},
		{"without=workingMemory", 200, `class="pill on" href="?without=working-memory#replay"`},
		{"without=working-memory&without=workingMemory", 400, "given twice"},
		{"without=memory", 400, "recalled, observations or working-memory"},
	} {
		code, body := get(t, ts.URL+"/ui/runs/run-1?"+c.query, "")
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("?%s: %d, want %d and %q in the page", c.query, code, c.code, c.want)
		}
		if code == 200 && !strings.Contains(body, "counterfactual") {
			t.Errorf("?%s: no counterfactual in the page", c.query)
		}
	}
	if _, body := get(t, ts.URL+"/ui/runs/run-1", ""); !strings.Contains(body, `href="?without=working-memory#replay"`) {
		t.Errorf("the run page's link does not use ?without=working-memory")
	}
}
