package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONLinesNotEscaped: the one-line JSON of mnemo ingest --json (the
// file's name) and of search --queries (each line's id) writes "<", ">"
// and "&" as given, as every other --json output does (printJSON): they
// were "a\u0026b\u003c1\u003e.jsonl" and "q\u003c1\u003e\u0026".
func TestJSONLinesNotEscaped(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "a&b<1>.jsonl")
	if err := os.WriteFile(in, []byte(`{"thread":"t1","resource":"r","role":"user","content":"the spare key"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "ingest", "--json", in)
	if want := `"file":` + quoteJSON(in); code != 0 || !strings.Contains(out, want) {
		t.Errorf("ingest --json: exit %d, stdout %q (%s); want %s", code, out, stderr, want)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte(`{"id":"q<1>&","resource":"r","query":"spare key"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "search", "--queries", queries)
	if want := `{"id":"q<1>&","hits":[`; code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("search --queries: exit %d, stdout %q (%s); want it to begin %s", code, out, stderr, want)
	}
}

// quoteJSON is s as a JSON string of plain characters (a temporary
// path's: no quote, backslash or control character).
func quoteJSON(s string) string { return `"` + s + `"` }
