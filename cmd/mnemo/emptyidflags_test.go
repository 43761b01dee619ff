package main

import (
	"strings"
	"testing"
)

// TestEmptyIDFlags: an id flag given as "" (--resource "", what a script's
// --resource "$R" passes when R is unset) is a usage error naming the flag,
// before anything is opened; before, it read as left out, so `mnemo expire
// --idle 1h --resource ""` expired every resource's idle threads, `mnemo
// runs --resource ""` listed every resource's runs and `mnemo search
// --thread ""` searched the whole resource (as GET /v1/runs?resourceId= and
// the MCP tools' "" ids did before they were refused).
func TestEmptyIDFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"runs", "--resource", ""}, "--resource"},
		{[]string{"runs", "--thread", ""}, "--thread"},
		{[]string{"threads", "--resource", ""}, "--resource"},
		{[]string{"expire", "--idle", "1h", "--resource", ""}, "--resource"},
		{[]string{"expire", "--resource=", "--dry-run"}, "--resource"},
		{[]string{"search", "--resource", "r", "--thread", "", "q"}, "--thread"},
		{[]string{"context", "--thread", "t", "--resource", ""}, "--resource"},
		{[]string{"context", "--thread", "t", "--run-id", ""}, "--run-id"},
		{[]string{"delete", "--thread", "t", "--resource", "", "--yes"}, "--resource"},
		{[]string{"observations", "--thread", "t", "--resource", ""}, "--resource"},
		{[]string{"wm", "get", "--thread", "t", "--resource", ""}, "--resource"},
	} {
		code, _, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, c.args...)...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || !strings.Contains(first, c.flag+" is empty") {
			t.Errorf("mnemo %q: exit %d, first line %q; want exit 2 and %q", c.args, code, first, c.flag+" is empty")
		}
	}
}
