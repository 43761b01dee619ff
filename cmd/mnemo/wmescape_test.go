package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWMTextNotEscaped: a working memory that says "a < b & c" is shown
// so by mnemo wm get and wm history, with --json too, in both modes. A
// markdown state's --json content was written by json.Marshal, which
// escapes HTML: "a \u003c b \u0026 c", text the user never wrote.
func TestWMTextNotEscaped(t *testing.T) {
	dir := t.TempDir()
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","role":"user","content":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		scope, mode, state string
	}{
		{"--resource", "--markdown", "# Notes\n- a < b & c > d\n"},
		{"--thread", "--no-validate", `{"note":"a < b & c > d"}`},
		{"--thread", "--no-validate", `{"note":"a \u003c b \u0026 c \u003e d"}`}, // stored as the value it means
	} {
		state := filepath.Join(t.TempDir(), "state")
		if err := os.WriteFile(state, []byte(tc.state), 0o600); err != nil {
			t.Fatal(err)
		}
		id := map[string]string{"--resource": "u1", "--thread": "t1"}[tc.scope]
		if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", tc.scope, id, tc.mode, state); code != 0 {
			t.Fatalf("set %s: exit %d: %s", tc.state, code, stderr)
		}
		for _, args := range [][]string{{"get"}, {"get", "--json"}, {"history"}, {"history", "--json"}} {
			code, out, stderr := run(t, nil, append([]string{"--dir", dir, "wm"}, append(args, tc.scope, id)...)...)
			if code != 0 || !strings.Contains(out, "a < b & c > d") || strings.Contains(out, `\u00`) {
				t.Errorf("wm %s of %q: exit %d, stdout %q (stderr %q); want a < b & c > d as written", strings.Join(args, " "), tc.state, code, out, stderr)
			}
		}
	}
}
