package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigTrailingData: a --config file (and so a stored mnemo.json) is
// one JSON object and nothing after it but whitespace. Before, it was
// decoded and the rest not looked at: a stray "}", or a second object
// whose settings were dropped.
func TestConfigTrailingData(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"recentN": 3}}`, "unexpected data after the JSON value at byte 14"},
		{`{"recentN": 3}]`, "unexpected data after the JSON value at byte 14"},
		{"{\"recentN\": 3}\n{\"recall\": {\"topK\": 5}}\n", "unexpected data after the JSON value at byte 15"},
		{"{\"recentN\": 3}\n \t\r\n", ""},
		// A byte-order mark, and a byte that is not UTF-8 (review17).
		{"\uFEFF{\"recentN\": 3}", "the file begins with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without one"},
		{"{\"observe\": {\"model\": \"caf\xe9\"}}", "not UTF-8 at byte 26 (JSON text is UTF-8; a string holding the byte would be read as U+FFFD): save the file as UTF-8"},
	} {
		path := filepath.Join(t.TempDir(), "mnemo-config.json")
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := readMemoryConfig(path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: err %v, want none", c.body, err)
		case c.want != "" && (err == nil || err.Error() != path+": "+c.want):
			t.Errorf("%q: err %v, want %s: %s", c.body, err, path, c.want)
		}
	}
}

// TestSearchTrailingData: a --filter, and a --queries line, followed by a
// stray "}" is refused, as each was already (json.Valid, json.Unmarshal):
// recall.ParseFilter, which passed such a filter to a Go caller, is not
// what refuses them here.
func TestSearchTrailingData(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run(t, nil, "--dir", dir, "search", "--resource", "r", "--filter", `{"role":"user"}}`, "q")
	if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || !strings.Contains(first, "--filter") {
		t.Fatalf("--filter: exit %d, stderr %s; want 2 naming --filter", code, stderr)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte(`{"id":"1","resource":"r","query":"q"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "search", "--queries", queries)
	if code == 0 || !strings.Contains(stderr, queries+":1:") || out != "" {
		t.Fatalf("--queries: exit %d, stdout %q, stderr %s; want a failure naming line 1", code, out, stderr)
	}
}

// TestQueriesRepeatedMember: a --queries line naming a member twice is
// refused naming the line and the member, as an imported JSONL line, a
// --config file and a request body are. Before, encoding/json kept the
// last: the line below searched resource "b" (review17).
func TestQueriesRepeatedMember(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"b","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte(`{"id":"1","resource":"a","query":"hello","resource":"b"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "search", "--queries", queries)
	want := "mnemo search: " + queries + `:1: "resource" is given twice in one object; give each member once` + "\n"
	if code != 1 || out != "" || stderr != want {
		t.Fatalf("--queries: exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, out, stderr, want)
	}
}

// TestQueriesByteOrderMark: a --queries file that begins with a UTF-8
// byte-order mark is read, as mnemo ingest reads a JSONL file's; it
// failed as `q.jsonl:1: invalid character 'ï' looking for beginning of
// value` (review17).
func TestQueriesByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte("\uFEFF"+`{"id":"1","resource":"r","query":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "search", "--queries", queries)
	if code != 0 || !strings.HasPrefix(out, `{"id":"1","hits":[{"threadId":"t1"`) {
		t.Fatalf("--queries: exit %d, stdout %q, stderr %q; want 0 and line 1's hit", code, out, stderr)
	}
}
