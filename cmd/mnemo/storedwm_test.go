package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoredWorkingMemoryChecked: a workingMemory member written by hand
// into a data directory's mnemo.json is checked as recall's is (a bad one
// fails every command that opens the directory, naming the field, with the
// advice) and a good one is applied: mnemo context renders its template,
// mnemo serve answers the working-memory route. Before (walk38 #1), the
// member was dropped in silence: each command ran, and serve answered 404
// working-memory-off.
func TestStoredWorkingMemoryChecked(t *testing.T) {
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384"}
	cases := []struct {
		name, stored, want string // want: "" applies it
	}{
		{"scope", `{"workingMemory": {"template": "# User\n- Name:\n", "scope": "bogus"}}`, `workingMemory.scope must be thread or resource, got "bogus"`},
		{"scope and maxChars", `{"workingMemory": {"mode": "template", "scope": "bogus", "maxChars": -5}}`, "workingMemory.scope"},
		{"negative", `{"workingMemory": {"template": "# User\n", "maxChars": -5}}`, "workingMemory.maxChars must be >= 0"},
		{"mode", `{"workingMemory": {"mode": "bogus", "template": "# User\n"}}`, `workingMemory.mode must be schema or template, got "bogus"`},
		{"schema", `{"workingMemory": {"schema": {"type": "nonsense"}}}`, "workingMemory:"},
		{"schemaFile", `{"workingMemory": {"schemaFile": "gone.schema.json"}}`, "workingMemory.schemaFile"},
		{"good", `{"workingMemory": {"template": "# User\n- Name:\n", "scope": "thread"}}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if code, _, errOut := run(t, env, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
				t.Fatalf("ingest: exit %d: %s", code, errOut)
			}
			if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(tc.stored), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, env, "--dir", dir, "context", "--thread", "t0", "--json")
			if tc.want != "" {
				if code != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "What to do: mnemo.json is the configuration") {
					t.Fatalf("context with %s: exit %d, %q; want 1 naming %q, with the advice", tc.stored, code, errOut, tc.want)
				}
				code, _, errOut = run(t, env, "--dir", dir, "serve", "--listen", "127.0.0.1:0")
				if code != 1 || !strings.Contains(errOut, tc.want) {
					t.Fatalf("serve with %s: exit %d, %q; want 1 naming %q", tc.stored, code, errOut, tc.want)
				}
				return
			}
			var got struct {
				System string `json:"system"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &got) != nil || !strings.Contains(got.System, "# User") {
				t.Fatalf("context with %s: exit %d %q, system %q; want the template", tc.stored, code, errOut, got.System)
			}
			url, stderr, stop := startServe(t, dir)
			res, err := http.Get(url + "/v1/threads/t0/working-memory")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if c := stop(); res.StatusCode != 200 || c != 0 {
				t.Fatalf("serve with %s: GET working-memory %d %s, exit %d: %s", tc.stored, res.StatusCode, body, c, stderr.String())
			}
		})
	}
}
