package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJSONNames: every --json output and the HTTP API use one convention:
// camelCase names (no snake_case, no unit suffixes such as createdAtMs) and
// times as RFC 3339 strings. Keys under "metadata" and "parameters" are
// the user's and a JSON Schema's and are not checked.
func TestJSONNames(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(t.TempDir(), "conv.jsonl")
	os.WriteFile(in, []byte(`{"thread":"t1","resource":"r1","role":"user","content":"what is the weather in Porto?","metadata":{"source_app":"x"}}
{"thread":"t1","resource":"r1","role":"assistant","content":"","tool_calls":[{"id":"c1","name":"weather","arguments":{"city":"Porto"}}]}
{"thread":"t1","resource":"r1","role":"tool","tool_call_id":"c1","name":"weather","content":"sunny, 21C"}
{"thread":"t1","resource":"r1","role":"assistant","content":"Sunny and 21C in Porto."}
{"thread":"t1","resource":"r1","role":"user","content":"and tomorrow in Porto?"}
`), 0o600)
	if code, _, errOut := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	commands := [][]string{
		{"context", "--thread", "t1", "--run-id", "run-1", "--recent", "2", "--top-k", "3", "--json"},
		{"messages", "--thread", "t1", "--json"},
		{"threads", "--json"},
		{"runs", "--json"},
		{"memctx", "run-1", "--json"},
		{"replay", "run-1", "--without", "recalled", "--json"},
		{"search", "--resource", "r1", "--json", "weather Porto"},
	}
	for _, args := range commands {
		code, out, errOut := run(t, nil, append([]string{"--dir", dir}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: not JSON: %v", args, err)
		}
		checkNames(t, args[0], "", v)
	}
	code, out, _ := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--run-id", "run-2", "--recent", "4", "--json")
	if code != 0 || !strings.Contains(out, `"toolCalls"`) || !strings.Contains(out, `"toolCallId"`) || !strings.Contains(out, `"promptHash"`) {
		t.Fatalf("context --json lacks toolCalls, toolCallId or promptHash:\n%s", out)
	}
}

func checkNames(t *testing.T, cmd, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			if strings.Contains(k, "_") || strings.HasSuffix(k, "Ms") || strings.HasSuffix(k, "Millis") {
				t.Errorf("%s: key %s.%s breaks the camelCase convention", cmd, path, k)
			}
			if k == "createdAt" || k == "updatedAt" {
				if s, ok := child.(string); !ok {
					t.Errorf("%s: %s.%s is %T, want an RFC 3339 string", cmd, path, k, child)
				} else if _, err := time.Parse(time.RFC3339, s); err != nil {
					t.Errorf("%s: %s.%s = %q: %v", cmd, path, k, s, err)
				}
			}
			if k == "metadata" || k == "parameters" || k == "arguments" {
				continue
			}
			checkNames(t, cmd, path+"."+k, child)
		}
	case []any:
		for _, child := range x {
			checkNames(t, cmd, path+"[]", child)
		}
	}
}
