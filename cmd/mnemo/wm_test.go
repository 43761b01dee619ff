package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWM(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(t.TempDir(), "schema.json")
	os.WriteFile(schema, []byte(`{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`), 0o600)
	state := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(state, []byte(`{"city":"Lyon"}`), 0o600)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"city":5}`), 0o600)

	// A read on a directory that holds no memory yet fails (issue 12).
	code, _, stderr := run(t, nil, "--dir", dir, "wm", "get", "--thread", "t1")
	if code != 1 || !strings.Contains(stderr, "not a mnemo data directory") {
		t.Fatalf("get on an empty directory: exit %d, %q; want 1, not a mnemo data directory", code, stderr)
	}
	newDataDir(t, dir)
	// A thread's state can only be written once the thread exists (issue 12:
	// otherwise it would be shown to whoever creates the thread); nor is
	// one read before (TestWMThreadNotFound).
	code, _, stderr = run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", "--schema", schema, state)
	if code != 1 || !strings.Contains(stderr, "thread not found") {
		t.Fatalf("set on a thread that does not exist: exit %d, %q; want 1 and thread not found", code, stderr)
	}
	msgs := filepath.Join(t.TempDir(), "t1.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","id":"m1","role":"user","content":"I live in Lyon"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "wm", "get", "--thread", "t1")
	if code != 0 || !strings.Contains(out, "no working memory stored") {
		t.Fatalf("get before set: exit %d, %q %q", code, out, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", state); code != 2 || !strings.Contains(stderr, "--schema") {
		t.Fatalf("set without a mode: exit %d, %q; want a usage error naming --schema", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", "--schema", schema, state); code != 0 {
		t.Fatalf("set: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", "--schema", schema, bad)
	if code != 1 || !strings.Contains(stderr, "/city") {
		t.Fatalf("invalid set: exit %d, %q; want 1 and the violation", code, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "wm", "get", "--thread", "t1", "--json")
	if code != 0 {
		t.Fatalf("get: exit %d: %s", code, stderr)
	}
	var st struct {
		Key     string          `json:"key"`
		Mode    string          `json:"mode"`
		Version int             `json:"version"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("get --json: %v\n%s", err, out)
	}
	var compact bytes.Buffer
	json.Compact(&compact, st.Content)
	if st.Key != "thread:t1" || st.Mode != "schema" || st.Version != 1 || compact.String() != `{"city":"Lyon"}` {
		t.Fatalf("get --json = %+v", st)
	}
	// Without --schema a schema-mode state is refused (the schema is not
	// stored, so nothing could validate it) unless --no-validate says so.
	os.WriteFile(state, []byte(`{"city":"Porto"}`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", state); code != 2 || !strings.Contains(stderr, "--no-validate") {
		t.Fatalf("set without --schema: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", "--no-validate", state); code != 0 || !strings.Contains(stderr, "version 2") {
		t.Fatalf("second set: exit %d: %s", code, stderr)
	}
	code, out, _ = run(t, nil, "--dir", dir, "wm", "history", "--thread", "t1")
	if code != 0 || strings.Index(out, "version 2") > strings.Index(out, "version 1") || !strings.Contains(out, "run "+wmRunID) || !strings.Contains(out, "Porto") {
		t.Fatalf("history: exit %d\n%s", code, out)
	}

	// Markdown, resource scope, stdin.
	code, out, stderr = runStdin(t, "# Notes\n- likes tea\n", "--dir", dir, "wm", "set", "--resource", "u1", "--markdown", "-")
	if code != 0 || !strings.Contains(out, "likes tea") || !strings.Contains(out, "resource:u1") {
		t.Fatalf("markdown set: exit %d %q %q", code, out, stderr)
	}

	for _, args := range [][]string{
		{"wm"},
		{"wm", "frob"},
		{"wm", "get"},
		{"wm", "get", "--thread", "a", "--resource", "b"},
		{"wm", "set", "--thread", "a"},
		{"wm", "set", "--thread", "a", "--markdown", "--schema", schema, state},
	} {
		if code, _, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...); code != 2 || !strings.Contains(stderr, "usage") {
			t.Errorf("mnemo %v: exit %d, %q; want 2 and a usage hint", args, code, stderr)
		}
	}
}

// runStdin runs mnemo in-process with stdin.
func runStdin(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	m := &Main{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code := m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

// TestWMSetNoValidateAndText: --no-validate stores a first schema-mode
// state (its flag says so; it was refused as "no working memory yet"), is
// refused on a markdown state instead of being ignored, and a file that is
// not UTF-8 text is refused (a binary file used to be stored as markdown).
func TestWMSetNoValidateAndText(t *testing.T) {
	dir := t.TempDir()
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","role":"user","content":"hi"}`+"\n"+`{"thread":"t2","resource":"u1","role":"user","content":"hi"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(state, []byte(`{"city":"Lyon"}`), 0o600)
	code, out, stderr := run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", "--no-validate", "--json", state)
	if code != 0 || !strings.Contains(out, `"mode": "schema"`) || !strings.Contains(out, "Lyon") {
		t.Fatalf("first set --no-validate: exit %d %q %q; want a schema-mode state", code, out, stderr)
	}
	notObject := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(notObject, []byte(`{bad`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--thread", "t2", "--no-validate", notObject); code != 1 || !strings.Contains(stderr, notObject+": malformed JSON at byte 1") {
		t.Errorf("set --no-validate of a file that is not JSON: exit %d %q; want 1, malformed JSON at byte 1", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "u1", "--markdown", msgs); code != 0 {
		t.Fatalf("markdown set: exit %d %q", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "u1", "--no-validate", notObject); code != 2 || !strings.Contains(stderr, "template-mode") {
		t.Errorf("set --no-validate on a markdown state: exit %d %q; want 2 naming the template mode", code, stderr)
	}
	binary := filepath.Join(t.TempDir(), "bin")
	os.WriteFile(binary, []byte("\x7fELF\x02\x01\x01\x00\xff\xfe"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "u1", "--markdown", binary); code != 1 || !strings.Contains(stderr, "not valid UTF-8") {
		t.Errorf("set of a binary file: exit %d %q; want 1, not valid UTF-8", code, stderr)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "wm", "get", "--resource", "u1"); code != 0 || strings.Contains(out, "ELF") || !strings.Contains(out, "version 1") {
		t.Errorf("state after the refusals: exit %d %q; want version 1 unchanged", code, out)
	}
}

// TestWMSetFileBounded: `mnemo wm set` reads at most 4 MiB of its state
// file and of its --schema file, and says so; before, a path such as
// /dev/zero was read until memory ran out.
func TestWMSetFileBounded(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	big := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxStateFileBytes + 1); err != nil { // sparse: no 4 MiB written
		t.Fatal(err)
	}
	f.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(state, []byte(`{"city":"Lyon"}`), 0o600)
	for _, args := range [][]string{{"--markdown", big}, {"--schema", big, state}} {
		code, _, stderr := run(t, nil, append([]string{"--dir", dir, "wm", "set", "--resource", "r"}, args...)...)
		if code != 1 || !strings.Contains(stderr, "is larger than") {
			t.Fatalf("wm set %v: exit %d, %q; want 1, is larger than", args, code, stderr)
		}
	}
}

// TestWMHistoryNothingStored: `wm history --json` of a key with nothing
// stored prints an empty list, the shape it prints when versions exist
// (docs/cli.md: a list is [] when empty); `wm get --json` prints the empty
// state. history printed get's object {"key", "stored": false, "version":
// 0} when no working-memory configuration was stored either.
func TestWMHistoryNothingStored(t *testing.T) {
	dir := t.TempDir()
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t-none","resource":"u1","role":"user","content":"hi"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "wm", "history", "--thread", "t-none", "--json")
	var versions []json.RawMessage
	if err := json.Unmarshal([]byte(out), &versions); code != 0 || err != nil || versions == nil || len(versions) != 0 {
		t.Errorf("wm history --json with nothing stored: exit %d, %q (%v) %s; want []", code, out, err, stderr)
	}
	code, out, _ = run(t, nil, "--dir", dir, "wm", "get", "--thread", "t-none", "--json")
	if code != 0 || !strings.Contains(out, `"stored": false`) {
		t.Errorf("wm get --json with nothing stored: exit %d, %q; want the empty state", code, out)
	}
	code, out, _ = run(t, nil, "--dir", dir, "wm", "history", "--thread", "t-none")
	if code != 0 || !strings.Contains(out, "no working memory stored") {
		t.Errorf("wm history with nothing stored: exit %d, %q", code, out)
	}
}

// TestWMSetModeRefusalOneLine: `mnemo wm set` that does not say which mode
// the state is in, or says the other one, is refused with one line and
// where the flags are described (exit 2), as a value error; it printed the
// command's whole usage after the line.
func TestWMSetModeRefusalOneLine(t *testing.T) {
	dir := t.TempDir()
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","role":"user","content":"hi"}`+"\n"+`{"thread":"t2","resource":"u1","role":"user","content":"hi"}`+"\n"), 0o600)
	state := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(state, []byte(`{"city":"Lyon"}`), 0o600)
	for _, args := range [][]string{{"ingest", msgs}, {"wm", "set", "--thread", "t1", "--no-validate", state}, {"wm", "set", "--resource", "u1", "--markdown", msgs}} {
		if code, _, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"NoState", []string{"--thread", "t2", state}, "thread:t2 has no working memory yet: say --schema SCHEMA.json, --no-validate (a JSON object) or --markdown"},
		{"SchemaState", []string{"--thread", "t1", state}, "thread:t1 holds a schema-mode state: give --schema SCHEMA.json to validate the new state, or --no-validate"},
		{"TemplateState", []string{"--resource", "u1", "--no-validate", state}, "resource:u1 holds a template-mode (markdown) state: --no-validate is for schema-mode states; say --markdown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", dir, "wm", "set"}, c.args...)...)
			if want := "mnemo wm set: " + c.want + "\nRun 'mnemo help wm set' for the flags.\n"; code != 2 || out != "" || stderr != want {
				t.Errorf("wm set %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, stderr, want)
			}
		})
	}
}
