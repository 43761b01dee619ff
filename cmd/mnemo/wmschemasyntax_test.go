package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWMSetSchemaSyntaxPlace: a --schema file that is not JSON names the
// file and where it breaks, as mnemo.json does: "malformed JSON at byte
// N" (from 0) for a bad character, "the JSON ends before its value does"
// for a file cut short, data after the schema at its byte, and a file of
// white space only as empty, where
// encoding/json said "invalid schema: invalid character '}' looking for
// beginning of object key string" or "unexpected EOF", naming neither the
// file nor the place. Nothing is stored.
func TestWMSetSchemaSyntaxPlace(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(state, []byte(`{"a":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	badChar := "{\"type\":\"object\",\n \"properties\":{\"a\":{\"type\":\"string\"},}}"
	for _, c := range []struct{ name, schema, want string }{
		{"BadCharacter", badChar, fmt.Sprintf("malformed JSON at byte %d: invalid character '}' looking for beginning of object key string", strings.Index(badChar, ",}")+1)},
		{"CutShort", `{"type":"object"`, "the JSON ends before its value does"},
		{"Trailing", `{"type":"object"} x`, "unexpected data after the JSON value at byte 18"},
		{"Empty", " \n", "the file is empty (want a JSON Schema object)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			schema := filepath.Join(t.TempDir(), "schema.json")
			if err := os.WriteFile(schema, []byte(c.schema), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "r", "--schema", schema, state)
			want := "mnemo wm set: invalid schema: " + schema + ": " + c.want
			if code != 1 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
			}
			if _, out, _ := run(t, nil, "--dir", dir, "wm", "get", "--resource", "r"); !strings.Contains(out, "no working memory stored") {
				t.Errorf("wm get after the refusal: %q; want none stored", out)
			}
		})
	}
}

// TestWMSetStateSyntaxPlace: a schema-mode state file that is not JSON
// names the file and where it breaks, as a --schema file does, where the
// state's check said "invalid update: not valid JSON: invalid character
// '}' looking for beginning of object key string". Nothing is stored.
func TestWMSetStateSyntaxPlace(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, state, want string }{
		{"BadCharacter", `{"a":1,}`, "malformed JSON at byte 7: invalid character '}' looking for beginning of object key string"},
		{"CutShort", `{"a":1`, "the JSON ends before its value does"},
		{"WhiteSpace", " \n", "the file is empty (want a JSON object)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(state, []byte(c.state), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "r", "--schema", schema, state)
			want := "mnemo wm set: " + state + ": " + c.want
			if code != 1 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
			}
		})
	}
}
