package engine_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestSecretsDocKept: every text docs/secrets.md lists under "Kept on
// purpose" (a line "- `"…"`", a Go string) is stored as written by the
// default redactor, and the list is not empty (red67).
func TestSecretsDocKept(t *testing.T) {
	doc, err := os.ReadFile("../docs/secrets.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n### Kept on purpose\n")
	if !ok {
		t.Fatal(`docs/secrets.md: no "### Kept on purpose" section`)
	}
	section, _, _ = strings.Cut(section, "\n#")
	r := engine.DefaultRedactor()
	n := 0
	for _, line := range strings.Split(section, "\n") {
		q, ok := keptProbe(line)
		if !ok {
			continue
		}
		s, err := strconv.Unquote(q)
		if err != nil {
			t.Errorf("docs/secrets.md: %s: %v", line, err)
			continue
		}
		n++
		if got := r.Redact(s); got != s {
			t.Errorf("docs/secrets.md lists %s as kept; it is stored %q", q, got)
		}
	}
	if got, want := n, 250; got < want {
		t.Fatalf("docs/secrets.md lists %d kept texts, want at least %d", got, want)
	}
}

// keptProbe returns the quoted Go string of a list line: a dash, a blank
// and the string in a code span (of two backticks and blanks when the
// text holds a backtick).
func keptProbe(line string) (string, bool) {
	for _, open := range []string{"- `` ", "- `"} {
		if rest, ok := strings.CutPrefix(line, open); ok {
			q := strings.TrimSuffix(strings.TrimSuffix(rest, " ``"), "`")
			return q, strings.HasPrefix(q, `"`)
		}
	}
	return "", false
}
