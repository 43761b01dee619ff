package main

import (
	"strings"
	"testing"
)

// TestCommandFlagBeforeCommand: a command's flag given before the command
// is told where it goes, with the command line rewritten; a flag no
// command after it takes gets no such line. readme48 ran mnemo --resource
// alice threads and read only "flag provided but not defined: --resource".
func TestCommandFlagBeforeCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		hint string // "" means none
	}{
		{[]string{"--resource", "alice", "threads"}, "--resource is a flag of threads: put it after the command: mnemo threads --resource alice"},
		{[]string{"--dir", "d", "--top-k", "5", "search", "--resource", "R", "a b"}, "--top-k is a flag of search: put it after the command: mnemo --dir d search --top-k 5 --resource R 'a b'"},
		{[]string{"--resource=x", "wm", "get"}, "--resource is a flag of wm get: put it after the command: mnemo wm get --resource=x"},
		{[]string{"--frobnicate", "threads"}, ""},
		// The flag's value names a command: the command is the next one
		// (cli51: "mnemo threads --resource search foo").
		{[]string{"--resource", "threads", "search", "foo"}, "--resource is a flag of search: put it after the command: mnemo search --resource threads foo"},
		{[]string{"--json", "threads"}, "--json is a flag of threads: put it after the command: mnemo threads --json"},
		// wm get's help names wm set's --schema; wm get has no such flag.
		{[]string{"--schema", "x", "wm", "get"}, ""},
		{[]string{"--schema", "x", "wm", "set", "--resource", "R", "f.json"}, "--schema is a flag of wm set: put it after the command: mnemo wm set --schema x --resource R f.json"},
		// A global flag between the flag and the command stays before it.
		{[]string{"--top-k", "5", "--dir", "d", "search", "q"}, "--top-k is a flag of search: put it after the command: mnemo --dir d search --top-k 5 q"},
		{[]string{"--resource", "alice"}, ""},
	} {
		code, stdout, stderr := run(t, nil, c.args...)
		lines := strings.Split(stderr, "\n")
		if code != 2 || stdout != "" || len(lines) < 2 || !strings.HasPrefix(lines[0], "mnemo: flag provided but not defined: --") {
			t.Fatalf("mnemo %s: exit %d, stdout %q, stderr %q; want 2 and the flag refused", strings.Join(c.args, " "), code, stdout, stderr)
		}
		got := lines[1]
		if strings.HasPrefix(got, "usage: ") {
			got = ""
		}
		if got != c.hint {
			t.Errorf("mnemo %s: second line %q, want %q", strings.Join(c.args, " "), got, c.hint)
		}
	}
}
