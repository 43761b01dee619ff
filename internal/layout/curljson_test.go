package layout_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// curlJSON is a curl command line (an example's line, not prose) given
// --json, which curl has had since 7.82 (March 2022): an older one says
// "option --json: is unknown".
var curlJSON = regexp.MustCompile(`(?m)^\s*(?:\$ )?curl\b[^\n]*\s--json\b`)

// TestCurlJSONSaysVersion: a page of README.md, BENCHMARKS.md or docs/*.md
// whose examples use `curl --json` says, before the first, that it needs
// curl 7.82 (docs/serve.md's did not, and a distribution's older curl
// refused every example).
func TestCurlJSONSaysVersion(t *testing.T) {
	root := moduleRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "BENCHMARKS.md")}, pages...)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		loc := curlJSON.FindStringIndex(text)
		if loc == nil {
			continue
		}
		if !strings.Contains(text[:loc[0]], "7.82") {
			rel, _ := filepath.Rel(root, page)
			t.Errorf("%s line %d uses curl --json without saying before it that it needs curl 7.82 or later", rel, strings.Count(text[:loc[0]], "\n")+1)
		}
	}
}
