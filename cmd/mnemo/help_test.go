package main

import (
	"strings"
	"testing"
)

// TestHelp: help goes to standard output with exit 0 (mnemo help, mnemo
// help COMMAND, COMMAND -h, --help), flags are spelled --flag, wm get -h
// lists only get's flags, and help names the docs/ page where the README's
// reference moved; a usage error goes to standard error with exit 2.
func TestHelp(t *testing.T) {
	cases := []struct {
		args      []string
		want, not []string
		code      int
		toStdout  bool
	}{
		{[]string{"help"}, []string{"commands:", "serve", "mcp", "version", "--dir DIR", `(docs/cli.md, "--json and exit codes")`}, nil, 0, true},
		{[]string{"--help"}, []string{"commands:"}, nil, 0, true},
		{[]string{"help", "serve"}, []string{"--listen", "--tokens", "--config", "127.0.0.1:7077", "(docs/serve.md)"}, []string{"\n  -listen"}, 0, true},
		{[]string{"serve", "-h"}, []string{"--listen"}, nil, 0, true},
		{[]string{"wm", "get", "-h"}, []string{"--thread", "--resource", "--json"}, []string{"--limit", "--schema", "--markdown"}, 0, true},
		{[]string{"wm", "set", "--help"}, []string{"--schema", "--no-validate"}, []string{"--limit"}, 0, true},
		{[]string{"bench", "-h"}, []string{"--baseline FILE"}, []string{"--baseline mnemo"}, 0, true},
		// --recent 0 silently meant 10; the help said only "(default 10)".
		{[]string{"observe", "-h"}, []string{"else 10; 0 means the default)", "else 30000; 0 means the default)"}, nil, 0, true},
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

// TestHelpCommandLines: a command's line in `mnemo help` names what it
// does whole: serve's every path it serves (it listed /v1, /metrics and
// /openapi.json, not /mcp nor /ui/), check's the database it verifies
// beside the indexes (it said only "verify that the indexes match the
// store").
func TestHelpCommandLines(t *testing.T) {
	code, out, errOut := run(t, nil, "help")
	if code != 0 || errOut != "" {
		t.Fatalf("mnemo help: exit %d, stderr %q", code, errOut)
	}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"serve", []string{"(/v1)", "(/mcp)", "(/ui/)", "/metrics", "/openapi.json"}},
		{"check", []string{"verify the database and that the indexes match it"}},
	} {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  "+c.name+" ") {
				line = l
			}
		}
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("mnemo help: %s's line %q lacks %q", c.name, line, w)
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
	if got, want := out.String(), "stdin (jsonl): 1 resource, 1 thread, 2 messages stored, 0 already stored, 0 skipped\n"; got != want {
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

// TestUsageLines: every command's usage (mnemo help COMMAND) starts with
// "usage: mnemo [--dir DIR | --db URL]" but those of the commands that
// open no data directory (version, models: "usage: mnemo version"), has
// no line ending in a space (an
// empty argument part left "context [flags] "), and names the flags a
// command cannot run without (context's usage omitted --thread T); the
// usage of wm and its subcommands names --db like every other.
func TestUsageLines(t *testing.T) {
	required := map[string]string{
		"context":      "--thread T",
		"messages":     "--thread T",
		"observe":      "--thread T",
		"observations": "(--thread T | --resource R)",
		"search":       "--resource R QUERY",
		"memctx":       "RUN_ID",
		"replay":       "RUN_ID",
		"delete":       "--resource R",
	}
	check := func(args []string, out string) {
		t.Helper()
		if name := args[len(args)-1]; name == "version" || name == "models" {
			if want := "usage: mnemo " + name + " "; !strings.HasPrefix(out, want) {
				t.Errorf("mnemo %v: usage does not start %q (%s ignores --dir and --db):\n%s", args, want, name, out)
			}
			return
		}
		if !strings.HasPrefix(out, "usage:") || !strings.Contains(strings.SplitN(out, "\n", 3)[0]+out, "mnemo [--dir DIR | --db URL]") {
			t.Errorf("mnemo %v: usage does not start with the global flags:\n%s", args, out)
		}
		for i, line := range strings.Split(out, "\n") {
			if strings.TrimRight(line, " ") != line {
				t.Errorf("mnemo %v: line %d ends in a space: %q", args, i+1, line)
			}
		}
	}
	for name := range commands {
		args := []string{"help", name}
		code, out, errOut := run(t, nil, args...)
		if code != 0 || errOut != "" {
			t.Errorf("mnemo help %s: exit %d, %q", name, code, errOut)
			continue
		}
		check(args, out)
		if want, ok := required[name]; ok && !strings.Contains(strings.SplitN(out, "\n", 2)[0], want) {
			t.Errorf("mnemo help %s: usage line lacks %q: %q", name, want, strings.SplitN(out, "\n", 2)[0])
		}
	}
	for _, args := range [][]string{{"wm", "get", "-h"}, {"wm", "history", "-h"}, {"wm", "set", "-h"}} {
		code, out, _ := run(t, nil, args...)
		if code != 0 {
			t.Errorf("mnemo %v: exit %d", args, code)
		}
		check(args, out)
		if !strings.Contains(out, "(--thread T | --resource R)") {
			t.Errorf("mnemo %v: usage lacks (--thread T | --resource R):\n%s", args, out)
		}
	}
	code, out, _ := run(t, nil, "help", "wm")
	if code != 0 || strings.Count(out, "mnemo [--dir DIR | --db URL] wm") != 3 {
		t.Errorf("mnemo help wm: exit %d; want each of the three lines to name --db:\n%s", code, out)
	}
}

// TestNotDataDirHint: the hint after "not a mnemo data directory" names
// every command that creates one, mcp included.
func TestNotDataDirHint(t *testing.T) {
	code, _, stderr := run(t, nil, "--dir", t.TempDir(), "threads")
	if code != 1 || !strings.Contains(stderr, "not a mnemo data directory") {
		t.Fatalf("threads on an empty directory: exit %d, %q", code, stderr)
	}
	for _, c := range []string{"mnemo ingest", "mnemo wm set", "mnemo serve", "mnemo mcp"} {
		if !strings.Contains(stderr, c) {
			t.Errorf("the hint lacks %q: %q", c, stderr)
		}
	}
}

// TestSearchLexicalNoEmptyEmbedder: search --mode lexical runs no embedder,
// and said so with an empty "embedder " at the end of its retrieval line.
func TestSearchLexicalNoEmptyEmbedder(t *testing.T) {
	dir := t.TempDir()
	m := &Main{Stdin: strings.NewReader(`{"thread":"t1","resource":"r1","role":"user","content":"the refund for order 7"}` + "\n"),
		Stdout: new(strings.Builder), Stderr: new(strings.Builder), Getenv: func(k string) string {
			if k == "MNEMO_EMBEDDER" {
				return "hash-384"
			}
			return ""
		}}
	if code := m.Run(t.Context(), []string{"--dir", dir, "ingest", "-"}); code != 0 {
		t.Fatalf("ingest: exit %d %s", code, m.Stderr)
	}
	for _, c := range []struct {
		mode, want string
	}{{"lexical", "retrieval: lexical ok · vector off\n"}, {"hybrid", " · embedder hash-384\n"}} {
		code, out, errOut := run(t, nil, "--dir", dir, "search", "--resource", "r1", "--mode", c.mode, "refund")
		if code != 0 {
			t.Fatalf("search --mode %s: exit %d %s", c.mode, code, errOut)
		}
		if !strings.Contains(out, c.want) || strings.Contains(out, "embedder \n") || strings.Contains(out, "embedder  ") {
			t.Errorf("search --mode %s: output lacks %q or has an empty embedder:\n%s", c.mode, c.want, out)
		}
	}
}
