package main

import (
	"strings"
	"testing"
)

// TestHelp: help goes to standard output with exit 0 (mnemo help, mnemo
// help COMMAND, COMMAND -h, --help), flags are spelled --flag, wm get -h
// lists only get's flags; a usage error goes to standard error with exit 2.
func TestHelp(t *testing.T) {
	cases := []struct {
		args      []string
		want, not []string
		code      int
		toStdout  bool
	}{
		{[]string{"help"}, []string{"commands:", "serve", "mcp", "version", "--dir DIR"}, nil, 0, true},
		{[]string{"--help"}, []string{"commands:"}, nil, 0, true},
		{[]string{"help", "serve"}, []string{"--listen", "--tokens", "--config", "127.0.0.1:7077"}, []string{"\n  -listen"}, 0, true},
		{[]string{"serve", "-h"}, []string{"--listen"}, nil, 0, true},
		{[]string{"wm", "get", "-h"}, []string{"--thread", "--resource", "--json"}, []string{"--limit", "--schema", "--markdown"}, 0, true},
		{[]string{"wm", "set", "--help"}, []string{"--schema", "--no-validate"}, []string{"--limit"}, 0, true},
		{[]string{"bench", "-h"}, []string{"--baseline FILE"}, []string{"--baseline mnemo"}, 0, true},
		{[]string{"delete", "-h"}, []string{"--message ID"}, []string{"--message value"}, 0, true},
		{[]string{"help", "nope"}, []string{"unknown command"}, nil, 2, false},
		{[]string{"serve", "--bogus"}, []string{"flag provided but not defined", "--listen"}, nil, 2, false},
		{[]string{"version"}, []string{"mnemo ", "go1."}, nil, 0, true},
		{[]string{"--version"}, []string{"mnemo ", "go1."}, nil, 0, true},
	}
	for _, c := range cases {
		code, out, errOut := run(t, nil, c.args...)
		got, other := out, errOut
		if !c.toStdout {
			got, other = errOut, out
		}
		if code != c.code || other != "" {
			t.Errorf("mnemo %v: exit %d (want %d); the other stream has %q", c.args, code, c.code, other)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("mnemo %v: output lacks %q:\n%s", c.args, w, got)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("mnemo %v: output has %q:\n%s", c.args, w, got)
			}
		}
	}
}

// TestIngestStdin: ingest - reads standard input (format detected from the
// content), with the one summary line when standard error is not a
// terminal.
func TestIngestStdin(t *testing.T) {
	dir := t.TempDir()
	var out, errOut strings.Builder
	m := &Main{Stdin: strings.NewReader(`{"thread":"t1","resource":"r1","role":"user","content":"from a pipe"}
{"thread":"t1","resource":"r1","role":"assistant","content":"received"}
`), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	if code := m.Run(t.Context(), []string{"--dir", dir, "ingest", "-"}); code != 0 {
		t.Fatalf("ingest -: exit %d %s", code, errOut.String())
	}
	if got, want := out.String(), "stdin (jsonl): 1 resources, 1 threads, 2 messages stored, 0 already stored, 0 skipped\n"; got != want {
		t.Fatalf("stdout %q, want %q", got, want)
	}
	if errOut.String() != "" {
		t.Fatalf("stderr without a terminal: %q", errOut.String())
	}
	code, msgs, _ := run(t, nil, "--dir", dir, "messages", "--thread", "t1")
	if code != 0 || !strings.Contains(msgs, "from a pipe") {
		t.Fatalf("messages after ingest -: %d %s", code, msgs)
	}
}
