package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchEmptyResourceNote: a search of a resource (or a --thread)
// that holds no message, a mistyped id most likely, says so on standard
// error and exits 0 with its usual answer (--json's shape unchanged, a
// --queries line's answer too); a search of a stored resource that finds
// nothing says no such thing. Before, `mnemo search --resource nobody …`
// printed an empty table and nothing else.
func TestSearchEmptyResourceNote(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"the garden needs water"}
`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	nobody := `mnemo search: note: resource "nobody" has no messages, so nothing was searched; check the id: to list the stored resources, run: mnemo --dir ` + dir + ` threads` + "\n"
	noThread := `mnemo search: note: thread "tt" of resource "r" has no messages, so nothing was searched; check the ids: to list its threads, run: mnemo --dir ` + dir + ` threads --resource r` + "\n"
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"--resource", "nobody", "garden"}, nobody},
		{[]string{"--resource", "nobody", "--json", "garden"}, nobody},
		{[]string{"--resource", "r", "--thread", "tt", "garden"}, noThread},
		{[]string{"--resource", "r", "--thread", "tt", "--json", "garden"}, noThread},
		{[]string{"--resource", "r", "--mode", "lexical", "zebra"}, ""}, // stored, no match
		{[]string{"--resource", "r", "--thread", "t", "--mode", "lexical", "--json", "zebra"}, ""},
	} {
		code, out, stderr := run(t, nil, append([]string{"--dir", dir, "search"}, c.args...)...)
		if code != 0 || stderr != c.note {
			t.Errorf("search %v: exit %d, stderr %q; want 0 and %q", c.args, code, stderr, c.note)
		}
		if strings.Contains(strings.Join(c.args, " "), "--json") {
			var res struct{ Hits []any }
			if err := json.Unmarshal([]byte(out), &res); err != nil || res.Hits == nil || len(res.Hits) != 0 {
				t.Errorf("search %v: stdout %q, want {\"hits\": [], …}", c.args, out)
			}
		}
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(queries, []byte(`{"id":"q1","resource":"r","query":"garden"}
{"id":"q2","resource":"nobody","query":"garden"}
`), 0o600)
	code, out, stderr := run(t, nil, "--dir", dir, "search", "--queries", queries)
	want := `mnemo search: note: ` + queries + `:2 (q2): resource "nobody" has no messages, so nothing was searched; check the id: to list the stored resources, run: mnemo --dir ` + dir + ` threads` + "\n"
	if code != 0 || stderr != want || !strings.HasSuffix(out, `{"id":"q2","hits":[]}`+"\n") {
		t.Errorf("search --queries: exit %d, stdout %q, stderr %q; want 0, q2's empty hits and %q", code, out, stderr, want)
	}
}
