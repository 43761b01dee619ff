package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestUnpaired: mnemo ingest counts, on its summary line (and in
// --json's unpaired), the tool results it stored that answer no call of
// their thread, and names the first few on standard error by line,
// thread, seq and tool_call_id. Such a result is stored, and every
// context leaves it out; before, ingest stored it without a word.
func TestIngestUnpaired(t *testing.T) {
	lines := []string{
		`{"thread":"t1","resource":"r","id":"m1","role":"user","content":"look"}`,
		`{"thread":"t1","resource":"r","id":"m2","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"lookup","arguments":{}}]}`,
		`{"thread":"t1","resource":"r","id":"m3","role":"tool","tool_call_id":"c1","content":"found"}`,
		`{"thread":"t1","resource":"r","id":"m4","role":"tool","tool_call_id":"c9","content":"stray"}`,
		`{"thread":"t2","resource":"r","id":"m5","role":"tool","tool_call_id":"c1","content":"first"}`,
	}
	for i := range 6 { // more than importer.MaxUnpairedListed in all
		lines = append(lines, fmt.Sprintf(`{"thread":"t3","resource":"r","id":"s%d","role":"tool","tool_call_id":"x%d","content":"stray"}`, i, i))
	}
	file := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, nil, "--dir", t.TempDir(), "ingest", file)
	if want := "3 threads, 11 messages stored, 0 already stored, 0 skipped; 8 tool results answer no call\n"; code != 0 || !strings.HasSuffix(out, want) {
		t.Fatalf("exit %d, out %q (%s); want exit 0 and a line ending %q", code, out, stderr, want)
	}
	for _, want := range []string{
		fmt.Sprintf("unpaired: %s line 4: tool_call_id \"c9\" (thread t1, seq 4) answers no call before it", file),
		fmt.Sprintf("unpaired: %s line 5: tool_call_id \"c1\" (thread t2, seq 1)", file),
		fmt.Sprintf("unpaired: %s line 8: tool_call_id \"x2\" (thread t3, seq 3)", file),
		fmt.Sprintf("unpaired: %s: 3 more tool results answer no call\n", file),
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q\nwant it to hold %q", stderr, want)
		}
	}
	if n := strings.Count(stderr, " answers no call before it"); n != 5 {
		t.Errorf("%d results named on stderr, want 5", n)
	}
	// Again, --json: every message already stored, each still unpaired.
	code, out, stderr = run(t, nil, "--dir", filepath.Dir(file)+"/again", "ingest", "--json", file)
	var rep struct{ Unpaired int }
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Unpaired != 8 {
		t.Fatalf("--json: exit %d, %v, out %q (%s); want unpaired 8", code, err, out, stderr)
	}
}
