package main

import (
	"strings"
	"testing"
)

// TestIDFlagFault: an id inside a flag's list (replay --without's
// THREAD:SEQ, mcp --resources) is refused in the API's form of an id
// refusal, the rule (engine.IDRule) and what the id broke
// (engine.IDFault), exit 2. They said `the thread "a b" is not a valid
// id: it must be …` and `"a b" is not a valid resource id`.
func TestIDFlagFault(t *testing.T) {
	const rule = "must be 1-128 characters of [A-Za-z0-9_.:@-]; got "
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--without", "a b:3", "r1"}, `--without: "a b:3": the thread ` + rule + `" " at byte 1`},
		{[]string{"replay", "--without", "recalled,x\u202ey:1", "r1"}, `the thread ` + rule + `"\u202e" at byte 1`},
		{[]string{"mcp", "--resources", "me,a b"}, "--resources: a resource id " + rule + `" " at byte 1`},
		{[]string{"mcp", "--resources", "me,,you"}, "--resources: a resource id " + rule + "an empty id"},
		{[]string{"mcp", "--resources", "me,\xff"}, "--resources: a resource id " + rule + "0xff at byte 0, which is not UTF-8"},
	} {
		code, stdout, stderr := run(t, nil, append([]string{"--dir", t.TempDir()}, tc.args...)...)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || !strings.Contains(first, tc.want) || stdout != "" {
			t.Errorf("mnemo %q: exit %d, stdout %q, first line %q; want exit 2 and %q", tc.args, code, stdout, first, tc.want)
		}
	}
}
