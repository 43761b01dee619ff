package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRunNotFoundWording: a run with no memctx record is said one way,
// as a missing thread is (`thread not found: "T"`), by memctx, memctx
// --html and replay: `run not found: "nosuch"`. memctx and replay said
// `record not found: run nosuch`, memctx --html `run "nosuch" not found`.
func TestRunNotFoundWording(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	for _, c := range []struct{ name, args []string }{
		{[]string{"memctx"}, []string{"memctx", "nosuch"}},
		{[]string{"memctx"}, []string{"memctx", "--json", "nosuch"}},
		{[]string{"memctx"}, []string{"memctx", "--html", filepath.Join(t.TempDir(), "run.html"), "nosuch"}},
		{[]string{"replay"}, []string{"replay", "nosuch", "--without", "recalled"}},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
		want := "mnemo " + c.name[0] + `: run not found: "nosuch"` + "\n"
		if code != 1 || out != "" || stderr != want {
			t.Errorf("mnemo %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(c.args, " "), code, out, stderr, want)
		}
	}
}

// TestSubcommandErrorName: a runtime error of a subcommand is said under
// the subcommand's name, as its value errors are: "mnemo wm set: read
// schema: …" and "mnemo models fetch: fetch use-lite …" read "mnemo wm:"
// and "mnemo models:".
func TestSubcommandErrorName(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(t.TempDir(), "missing.json")
	for _, c := range []struct {
		env    map[string]string
		args   []string
		prefix string
	}{
		{nil, []string{"--dir", dir, "wm", "set", "--resource", "r", "--schema", missing, missing}, "mnemo wm set: read schema: "},
		{map[string]string{"MNEMO_MODELS": t.TempDir()}, []string{"models", "fetch", "--registry", "http://127.0.0.1:1", "use-lite"}, "mnemo models fetch: fetch use-lite "},
	} {
		code, _, stderr := run(t, c.env, c.args...)
		if code != 1 || !strings.HasPrefix(stderr, c.prefix) {
			t.Errorf("mnemo %s: exit %d, stderr %q; want exit 1 and a line beginning %q", strings.Join(c.args, " "), code, stderr, c.prefix)
		}
	}
}
