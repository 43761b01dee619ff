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

// TestIngestUnpairedAgain: the same file ingested again stores nothing,
// and the tool results that answer no call are counted again (they do
// answer none, and are stored) but said to be stored by an earlier
// import, on the summary line, in --json's unpairedEarlier and on each
// "unpaired:" line; a new one beside them is not. Before, the rerun said
// "; 1 tool result answers no call" and "stored, but …" as if it had just
// stored it (readme59).
func TestIngestUnpairedAgain(t *testing.T) {
	dir := t.TempDir()
	first := `{"thread":"t1","resource":"r","id":"m1","role":"user","content":"look"}` + "\n" +
		`{"thread":"t1","resource":"r","id":"m2","role":"tool","tool_call_id":"c9","content":"stray"}` + "\n"
	file := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(file, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 || !strings.HasSuffix(out, "2 messages stored, 0 already stored, 0 skipped; 1 tool result answers no call\n") {
		t.Fatalf("first ingest: exit %d, out %q (%s)", code, out, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "ingest", file)
	if want := "0 messages stored, 2 already stored, 0 skipped; 1 tool result answers no call (stored by an earlier import)\n"; code != 0 || !strings.HasSuffix(out, want) {
		t.Fatalf("again: exit %d, out %q (%s); want a line ending %q", code, out, stderr, want)
	}
	if want := `(thread t1, seq 2) answers no call before it: stored by an earlier import, but every context leaves it out`; !strings.Contains(stderr, want) {
		t.Errorf("again: stderr %q\nwant it to hold %q", stderr, want)
	}
	// The file grown by a new stray result: 2 answer no call, 1 of them earlier.
	grown := first + `{"thread":"t1","resource":"r","id":"m3","role":"tool","tool_call_id":"c7","content":"stray too"}` + "\n"
	if err := os.WriteFile(file, []byte(grown), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "ingest", "--json", file)
	var rep struct{ Messages, Duplicates, Unpaired, UnpairedEarlier int }
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Messages != 1 || rep.Duplicates != 2 || rep.Unpaired != 2 || rep.UnpairedEarlier != 1 {
		t.Fatalf("grown --json: exit %d, %v, out %q (%s); want messages 1, duplicates 2, unpaired 2, unpairedEarlier 1", code, err, out, stderr)
	}
	for _, want := range []string{
		`(thread t1, seq 2) answers no call before it: stored by an earlier import, but`,
		`(thread t1, seq 3) answers no call before it: stored, but`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("grown: stderr %q\nwant it to hold %q", stderr, want)
		}
	}
	if _, out, _ := run(t, nil, "--dir", dir, "ingest", file); !strings.HasSuffix(out, "; 2 tool results answer no call (stored by an earlier import)\n") {
		t.Errorf("grown again: out %q", out)
	}
}
