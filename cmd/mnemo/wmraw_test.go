package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// TestWMThreadNotFound: get, history and set of a thread that does not
// exist all fail (exit 1) in the words of the API's 404 for it (and of
// mnemo messages): `thread not found: "nosuch"`. get and history printed
// "thread:nosuch: no working memory stored" (exit 0), set `thread not
// found: "nosuch" has no messages, so it has no working memory to write`,
// or, without a mode flag, "thread:nosuch has no working memory yet: say
// --schema …" (exit 2).
func TestWMThreadNotFound(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	_, apiErr := server.Tenant{Engine: e, Principal: server.Operator}.WorkingMemory(context.Background(), "nosuch", "")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	api := server.Describe(apiErr)
	if api.Status != 404 || api.Detail != `thread not found: "nosuch"` {
		t.Fatalf("the API answers %d %q; want 404 thread not found", api.Status, api.Detail)
	}
	state := filepath.Join(t.TempDir(), "state.md")
	os.WriteFile(state, []byte("# Notes\n"), 0o600)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"Get", []string{"get", "--thread", "nosuch"}},
		{"GetJSON", []string{"get", "--thread", "nosuch", "--json"}},
		{"GetRaw", []string{"get", "--thread", "nosuch", "--raw"}},
		{"History", []string{"history", "--thread", "nosuch"}},
		{"Set", []string{"set", "--thread", "nosuch", "--markdown", state}},
		{"SetNoMode", []string{"set", "--thread", "nosuch", state}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", dir, "wm"}, c.args...)...)
			if want := "mnemo wm " + c.args[0] + ": " + api.Detail + "\n"; code != 1 || out != "" || stderr != want {
				t.Errorf("wm %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", c.args, code, out, stderr, want)
			}
		})
	}
}

// TestWMGetRawRoundTrip: `wm get --raw` writes the state's content byte for
// byte as stored (no header, no newline added, control and bidirectional
// characters as they are: standard output is no terminal here), so `wm
// set` of its output stores the same state ("unchanged"), in template and
// in schema mode. The text output escapes ESC and U+202E (termSafe) and
// adds a header line, so it did not round-trip, and there was no other
// way to get the content alone.
func TestWMGetRawRoundTrip(t *testing.T) {
	dir := t.TempDir()
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","role":"user","content":"hi"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		name, content string
		set           []string // the mode flag and the scope
	}{
		{"Template", "# Notes\n\n- tab\there\n- \x1b[31mred\x1b[0m, \u202eright-to-left, caf\u00e9\n\n\n", []string{"--markdown", "--thread", "t1"}},
		{"TemplateNoFinalNewline", "no newline at the end", []string{"--markdown", "--resource", "u2"}},
		// As stored: keys in order, U+202E as itself, ESC escaped.
		{"Schema", "{\"city\":\"Porto\",\"note\":\"esc \\u001b and \u202e\",\"todo\":[\"a\",\"b\"]}", []string{"--no-validate", "--resource", "u1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "state")
			os.WriteFile(file, []byte(c.content), 0o600)
			if code, _, stderr := run(t, nil, append(append([]string{"--dir", dir, "wm", "set"}, c.set...), file)...); code != 0 {
				t.Fatalf("set: exit %d: %s", code, stderr)
			}
			scope := c.set[1:]
			code, out, stderr := run(t, nil, append([]string{"--dir", dir, "wm", "get", "--raw"}, scope...)...)
			if code != 0 || out != c.content {
				t.Fatalf("get --raw: exit %d, %q (%s); want %q", code, out, stderr, c.content)
			}
			os.WriteFile(file, []byte(out), 0o600)
			code, _, stderr = run(t, nil, append(append([]string{"--dir", dir, "wm", "set"}, c.set...), file)...)
			if code != 0 || !strings.Contains(stderr, "unchanged (version 1)") {
				t.Fatalf("set of get --raw's output: exit %d, %q; want unchanged (version 1)", code, stderr)
			}
		})
	}
	// Nothing stored: get --raw fails (it exited 0 with nothing on
	// standard output, so `get --raw > f && set f` stored an empty
	// version 1), and set refuses an empty file.
	if code, out, stderr := run(t, nil, "--dir", dir, "wm", "get", "--raw", "--resource", "nobody"); code != 1 || out != "" || stderr != "mnemo wm get: resource:nobody: no working memory stored\n" {
		t.Errorf("get --raw of nothing stored: exit %d, stdout %q, stderr %q; want exit 1, nothing, and the note on stderr", code, out, stderr)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o600)
	if code, out, stderr := run(t, nil, "--dir", dir, "wm", "set", "--markdown", "--resource", "nobody", empty); code != 1 || out != "" || !strings.Contains(stderr, empty+" is empty: nothing to store") {
		t.Errorf("set of an empty file: exit %d, stdout %q, stderr %q; want exit 1 and \"is empty: nothing to store\"", code, out, stderr)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "wm", "get", "--resource", "nobody"); code != 0 || !strings.Contains(out, "no working memory stored") {
		t.Errorf("get after the refused set: exit %d, %q; want nothing stored", code, out)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "get", "--raw", "--json", "--thread", "t1"); code != 2 || !strings.Contains(stderr, "--raw and --json exclude each other") {
		t.Errorf("get --raw --json: exit %d, %q; want a usage error", code, stderr)
	}
}
