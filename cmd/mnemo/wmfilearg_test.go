package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWMSetFileArgument: wm set given text where its FILE goes (`mnemo wm
// set --resource r "my api key is sk-…"`) says FILE names a file and how
// to give text (standard input), and does not echo the text back: it said
// "read my api key is sk-…: open my api key is sk-…: no such file or
// directory", the state (secrets and all) twice on standard error. A
// missing file with a short name is still named; FILE "" is refused as
// empty (it was "read : open : no such file or directory"). A short
// argument the default redactor changes (sk-proj-…, password=…) is not
// quoted either: it said FILE "sk-proj-…": no such file (walk48 F9).
func TestWMSetFileArgument(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(t.TempDir(), "state.md")
	const secret = "sk-live-0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		arg      string
		code     int
		want     string // in standard error
		noEcho   string // never in standard error
		wantText string
	}{
		{"my api key is " + secret, 1, "no such file", secret, "standard input"},
		{"line one\nline two", 1, "no such file", "line one", "reads as text"},
		{"x" + secret + secret, 1, "no such file", secret, "reads as text"},
		{"AbC/" + secret + "+" + secret + "==", 1, "no such file", secret, "reads as text"},
		{missing, 1, `FILE "` + missing + `": no such file`, "", "standard input"},
		{"sk-proj-abcDEF1234567890abcdef", 1, "no such file", "abcDEF1234567890abcdef", "redacted"},
		{"password=hunter2", 1, "no such file", "hunter2", "redacted"},
		{"ghp_0123456789abcdefABCDEF0123456789abcd", 1, "no such file", "0123456789abcdefABCDEF", "redacted"},
		{"api_key:X1b2c3d4e5", 1, "no such file", "X1b2c3d4e5", "redacted"},
		// A value too short for the redactor is still a credential's
		// (fix52: FILE "api_key:X": no such file).
		{"api_key:X", 1, "no such file", "api_key:X", "redacted"},
		{"pwd=ab", 1, "no such file", "pwd=ab", "redacted"},
		{"token:", 1, "no such file", "token:", "redacted"},
		{"state.md", 1, `FILE "state.md": no such file`, "", "standard input"},
		{"", 2, "FILE is empty", "", "- for standard input"},
	} {
		code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--markdown", "--resource", "r", c.arg)
		if code != c.code || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, c.wantText) {
			t.Errorf("wm set %q: exit %d, %q; want exit %d saying %q and %q", c.arg, code, stderr, c.code, c.want, c.wantText)
		}
		if c.noEcho != "" && strings.Contains(stderr, c.noEcho) {
			t.Errorf("wm set %q: %q echoes the argument", c.arg, stderr)
		}
	}
}
