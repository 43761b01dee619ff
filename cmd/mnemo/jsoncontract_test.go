package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONContract pins what README's "--json and exit codes" and `mnemo
// help` promise a script: with --json, standard output holds JSON or
// nothing, whatever the exit status; errors are text on standard error,
// beginning "mnemo COMMAND"; exit 2 (a usage error) prints nothing on
// standard output, exit 1 prints nothing either, but for the commands that
// report what they did before failing (ingest, delete, ...).
func TestJSONContract(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"thread":"t","resource":"r","role":"user","content":"x"}`+"\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		code   int
		report bool // exit 1 with what was done on standard output
	}{
		{[]string{"threads", "--json"}, 0, false},
		{[]string{"threads", "--bogus", "--json"}, 2, false},
		{[]string{"context", "--thread", "ana:today", "--top-k", "5000", "--json"}, 2, false},
		{[]string{"search", "--resource", "", "--json", "q"}, 2, false},
		{[]string{"delete", "--thread", "ana:today", "--json"}, 2, false}, // no --yes, no terminal
		{[]string{"messages", "--thread", "nope", "--json"}, 1, false},
		{[]string{"context", "--thread", "nope", "--json"}, 1, false},
		{[]string{"memctx", "nope", "--json"}, 1, false},
		{[]string{"delete", "--message", "nope", "--yes", "--json"}, 1, true},
		{[]string{"ingest", "--strict", "--json", bad}, 1, true},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		switch {
		case code != c.code:
			t.Errorf("mnemo %q: exit %d, want %d: %s", c.args, code, c.code, stderr)
		case code != 0 && !strings.HasPrefix(stderr, "mnemo "+c.args[0]):
			t.Errorf("mnemo %q: standard error %q does not begin with the command", c.args, stderr)
		case code != 0 && (out != "") != c.report:
			t.Errorf("mnemo %q: exit %d with standard output %q", c.args, code, out)
		}
		if !onlyJSON(out) {
			t.Errorf("mnemo %q: standard output is not JSON:\n%s", c.args, out)
		}
	}
	if _, out, _ := run(t, nil, "help"); !strings.Contains(out, "Exit status: 0 done, 1 failed, 2 usage error") {
		t.Errorf("mnemo help does not give the exit statuses:\n%s", out)
	}
}

// onlyJSON reports whether s is a sequence of JSON documents and nothing
// else (empty included).
func onlyJSON(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return true
		} else if err != nil {
			return false
		}
	}
}
