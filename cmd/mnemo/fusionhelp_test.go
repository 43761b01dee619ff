package main

import (
	"strings"
	"testing"
)

// TestFusionHelpShared: every command that takes --fusion (search,
// context, eval) describes it in the same words, naming weighted and rrf
// and the default; eval's said "weighted or rrf (default: the measured
// default)", naming no default.
func TestFusionHelpShared(t *testing.T) {
	var first string
	for _, cmd := range []string{"search", "context", "eval"} {
		code, out, stderr := run(t, nil, "help", cmd)
		if code != 0 {
			t.Fatalf("help %s: exit %d, %s", cmd, code, stderr)
		}
		help := fusionUsage(out)
		for _, w := range []string{"weighted (", "rrf (", "(default weighted)"} {
			if !strings.Contains(help, w) {
				t.Errorf("help %s: --fusion's help %q lacks %q", cmd, help, w)
			}
		}
		if first == "" {
			first = help
		} else if help != first {
			t.Errorf("help %s: --fusion's help\n%q\nis not search's\n%q", cmd, help, first)
		}
	}
}

// fusionUsage returns the help text of --fusion in a command's help:
// the lines after "  --fusion" up to the next flag.
func fusionUsage(help string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(line, "  --fusion"):
			in = true
		case in && strings.HasPrefix(line, "  --"):
			return b.String()
		case in:
			b.WriteString(strings.TrimSpace(line) + " ")
		}
	}
	return b.String()
}
