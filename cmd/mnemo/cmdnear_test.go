package main

import (
	"strings"
	"testing"
)

// TestUnknownCommandNear: a misspelt command gets a did-you-mean, as a
// misspelt flag does, and a path the shell split at a space gets the line
// to paste with it quoted; either is said in a few lines, not above the
// whole command list (cli58, from readme57: "mnemo serv" and "mnemo --dir
// /tmp/my dir check" got only `unknown command` and some 40 lines).
func TestUnknownCommandNear(t *testing.T) {
	const tail = "\n" + usageLine + "\nRun 'mnemo help' for the commands.\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serv"}, `mnemo: unknown command "serv" (did you mean serve?)`},
		{[]string{"ingset", "x.jsonl"}, `mnemo: unknown command "ingset" (did you mean ingest?)`},
		{[]string{"hepl"}, `mnemo: unknown command "hepl" (did you mean help?)`},
		{[]string{"help", "serach"}, `mnemo: unknown command "serach" (did you mean search?)`},
		{[]string{"frobnicate"}, `mnemo: unknown command "frobnicate"`},
		// Short words (readme59): an abbreviation, another tool's word.
		{[]string{"srve"}, `mnemo: unknown command "srve" (did you mean serve?)`},
		{[]string{"chk"}, `mnemo: unknown command "chk" (did you mean check?)`},
		{[]string{"srch", "garden"}, `mnemo: unknown command "srch" (did you mean search?)`},
		{[]string{"msgs"}, `mnemo: unknown command "msgs" (did you mean messages?)`},
		{[]string{"ls"}, `mnemo: unknown command "ls" (did you mean threads?)`},
		{[]string{"rm"}, `mnemo: unknown command "rm" (did you mean delete?)`},
		{[]string{"help", "import"}, `mnemo: unknown command "import" (did you mean ingest?)`},
		// Nonsense, or near two commands: no guess.
		{[]string{"q"}, `mnemo: unknown command "q"`},
		{[]string{"xyz"}, `mnemo: unknown command "xyz"`},
		{[]string{"zz"}, `mnemo: unknown command "zz"`},
		{[]string{"obs"}, `mnemo: unknown command "obs"`},
		{[]string{"exp"}, `mnemo: unknown command "exp"`},
		{[]string{"thr"}, `mnemo: unknown command "thr"`},
		{[]string{"--dir", "/tmp/cli58/nowhere", "frobnicate"}, `mnemo: unknown command "frobnicate"`},
		{[]string{"--dir", "/tmp/my", "dir", "check"}, "mnemo: unknown command \"dir\"\n" +
			"a path with a space must be quoted: mnemo --dir '/tmp/my dir' check"},
		{[]string{"--embedder", "hash-384", "--dir=/tmp/x/my", "big", "data", "threads", "--json"}, "mnemo: unknown command \"big\"\n" +
			"a path with a space must be quoted: mnemo --embedder hash-384 --dir '/tmp/x/my big data' threads --json"},
		{[]string{"--db", "postgres://u@h/my", "db", "threads"}, "mnemo: unknown command \"db\"\n" +
			"a path with a space must be quoted: mnemo --db 'postgres://u@h/my db' threads"},
	} {
		code, out, errOut := run(t, nil, c.args...)
		if want := c.want + tail; code != 2 || out != "" || errOut != want {
			t.Errorf("mnemo %s: exit %d, stdout %q, stderr\n%s\nwant exit 2 and\n%s", strings.Join(c.args, " "), code, out, errOut, want)
		}
	}
}
