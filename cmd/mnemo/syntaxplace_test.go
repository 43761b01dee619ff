package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueriesSyntaxColumn: a --queries line that is not JSON names the
// column at fault (1-based, as mnemo ingest names a JSONL line's place; a
// first line's byte-order mark counts), where encoding/json's words named
// no place ("q.jsonl:2: invalid character 'x' looking for beginning of
// value"). A line of \v or U+00A0 is not blank (only space, tab and CR
// are, as for mnemo ingest): it was passed over as one. A character past
// ASCII is named with its code point ('\u00a0' (U+00A0)), as mnemo ingest
// names it, where encoding/json's words named its first byte as Latin-1
// ('Â').
func TestQueriesSyntaxColumn(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	good := `{"id":"a","resource":"r","query":"hi"}` + "\n"
	for _, tc := range []struct {
		name, text string
		line, col  int
		words      string
	}{
		{"BadCharacter", good + `{"id":"b", "resource":x}` + "\n", 2, len(`{"id":"b", "resource":`) + 1, "invalid character 'x'"},
		{"ByteOrderMark", "\uFEFF" + `{"id":x}` + "\n", 1, 3 + len(`{"id":`) + 1, "invalid character 'x'"},
		{"Truncated", good + `{"id":"a"` + "\n", 2, len(`{"id":"a"`) + 1, "unexpected end of JSON input"},
		// Only space, tab and CR make a line blank, as for mnemo ingest's
		// JSONL: these were passed over as blank.
		{"VerticalTab", good + " \v\n", 2, 2, `invalid character '\v'`},
		{"NoBreakSpace", good + "\u00a0\n", 2, 1, `invalid character '\u00a0' (U+00A0) looking for beginning of value`},
		// A character past ASCII is named whole, with its code point,
		// where encoding/json named its first byte as Latin-1 ('Â', 'â').
		{"EmSpace", good + `{"id":"b",` + "\u2003" + `"resource":"r"}` + "\n", 2, len(`{"id":"b",`) + 1, `invalid character '\u2003' (U+2003) looking for beginning of object key string`},
		{"Letter", good + `{"id":é}` + "\n", 2, len(`{"id":`) + 1, `invalid character 'é' (U+00E9) looking for beginning of value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			queries := filepath.Join(t.TempDir(), "q.jsonl")
			if err := os.WriteFile(queries, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := run(t, nil, "--dir", dir, "search", "--queries", queries)
			want := fmt.Sprintf("%s:%d: malformed JSON at column %d: %s", queries, tc.line, tc.col, tc.words)
			if code != 1 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
			}
		})
	}
}

// TestConfigSyntaxPlace: a mnemo.json that is not JSON says where it
// breaks, as the token file does: "malformed JSON at byte N" (from 0) for a
// bad character, read as --config or as the data directory's stored
// configuration, and "the JSON ends before its value does" for a file cut
// short, where encoding/json said "invalid character '}' looking for
// beginning of object key string" and "unexpected EOF".
func TestConfigSyntaxPlace(t *testing.T) {
	bad := `{"limits":{"maxQueryBytes":12,}}`
	at := strings.Index(bad, ",}") + 1
	p := filepath.Join(t.TempDir(), "mnemo.json")
	os.WriteFile(p, []byte(bad), 0o600)
	want := fmt.Sprintf("malformed JSON at byte %d: invalid character '}'", at)
	if _, err := readMemoryConfig(p); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--config: %v; want %q", err, want)
	}

	dir := t.TempDir()
	newDataDir(t, dir)
	os.WriteFile(filepath.Join(dir, "mnemo.json"), []byte(bad), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "threads"); code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stored mnemo.json: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}

	os.WriteFile(p, []byte(`{"limits":{"maxQueryBytes":12}`), 0o600)
	if _, err := readMemoryConfig(p); err == nil || !strings.Contains(err.Error(), "the JSON ends before its value does") {
		t.Errorf("a file cut short: %v; want it to say the JSON ends before its value does", err)
	}
}

// TestConfigSyntaxCharacter: a mnemo.json, a wm set --schema file or a
// schema-mode state that stops at a character past ASCII names it with
// its code point, '\u00a0' (U+00A0), where encoding/json's words named a
// byte of it as Latin-1: "invalid character 'Â'".
func TestConfigSyntaxCharacter(t *testing.T) {
	bad := "{\"limits\":\u00a0{}}"
	want := `malformed JSON at byte 10: invalid character '\u00a0' (U+00A0) looking for beginning of value`
	p := filepath.Join(t.TempDir(), "mnemo.json")
	os.WriteFile(p, []byte(bad), 0o600)
	if _, err := readMemoryConfig(p); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--config: %v; want %q", err, want)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(state, []byte(`{"a":1}`), 0o600)
	schema := filepath.Join(t.TempDir(), "schema.json")
	os.WriteFile(schema, []byte(bad), 0o600)
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "r", "--schema", schema, state); code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("wm set --schema: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	os.WriteFile(schema, []byte(`{"type":"object"}`), 0o600)
	os.WriteFile(state, []byte(bad), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--resource", "r", "--schema", schema, state); code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("wm set of a state: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

// TestQueriesBlankQuery: a --queries line whose query is white space only
// is refused naming its line, as `mnemo search "  "` and POST /v1/search
// refuse it; it was searched and answered every turn as a hit.
func TestQueriesBlankQuery(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	for _, q := range []string{" ", "\t\n", "\u00a0\u2003"} {
		text := `{"id":"a","resource":"r","query":"hi"}` + "\n" + fmt.Sprintf(`{"id":"b","resource":"r","query":%q}`, q) + "\n"
		queries := filepath.Join(t.TempDir(), "q.jsonl")
		if err := os.WriteFile(queries, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, nil, "--dir", dir, "search", "--queries", queries)
		want := queries + ":2: query is white space only"
		if code != 1 || !strings.Contains(stderr, want) {
			t.Fatalf("query %q: exit %d, stdout %q, stderr %q; want 1 and %q", q, code, stdout, stderr, want)
		}
	}
}
