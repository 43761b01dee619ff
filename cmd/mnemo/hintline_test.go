package main

import (
	"strings"
	"testing"
)

// TestUsageErrorPrefix: every usage error's first line begins "mnemo
// COMMAND: ", as the other errors do; those whose text began with the
// command's name read "mnemo check takes no arguments, got [\"extra\"]"
// and "mnemo search needs --resource …".
func TestUsageErrorPrefix(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "extra"}, `mnemo check: takes no arguments, got ["extra"]`},
		{[]string{"search", "refund"}, "mnemo search: needs --resource and a QUERY, or --queries FILE"},
		{[]string{"wm", "get"}, "mnemo wm get: needs exactly one of --thread and --resource"},
		{[]string{"models", "fetch"}, "mnemo models fetch: needs a model name"},
		{[]string{"memctx"}, "mnemo memctx: needs one RUN_ID"},
		{[]string{"ingest"}, "mnemo ingest: needs at least one FILE"},
		{[]string{"context", "--thread", "t", "--replace"}, "mnemo context: --replace needs --run-id"},
	} {
		code, _, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || !strings.HasPrefix(first, c.want) {
			t.Errorf("mnemo %s: exit %d, first line %q; want exit 2 and it to begin %q", strings.Join(c.args, " "), code, first, c.want)
		}
	}
}
