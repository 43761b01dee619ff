package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemCtxWorkingMemoryVersion: mnemo memctx names the working-memory
// version the run rendered and its key, and --json holds the record's
// workingMemoryScope and workingMemoryVersion.
func TestMemCtxWorkingMemoryVersion(t *testing.T) {
	dir := t.TempDir()
	newDataDir(t, dir)
	msgs := filepath.Join(t.TempDir(), "t1.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","id":"m1","role":"user","content":"I live in Lyon"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	schema := filepath.Join(dir, "schema.json")
	os.WriteFile(schema, []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`), 0o600)
	os.WriteFile(filepath.Join(dir, "mnemo.json"), []byte(`{"workingMemory": {"schemaFile": "schema.json"}}`), 0o600)
	for _, c := range []string{`{"city":"Lyon"}`, `{"city":"Porto"}`} {
		state := filepath.Join(t.TempDir(), "state.json")
		os.WriteFile(state, []byte(c), 0o600)
		if code, _, stderr := run(t, nil, "--dir", dir, "wm", "set", "--thread", "t1", "--schema", schema, state); code != 0 {
			t.Fatalf("wm set: exit %d: %s", code, stderr)
		}
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--run-id", "r1"); code != 0 {
		t.Fatalf("context: exit %d: %s%s", code, out, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "memctx", "r1")
	if code != 0 || !strings.Contains(out, "\nworking memory: v2 of thread:t1, ") {
		t.Errorf("memctx r1: exit %d, want \"working memory: v2 of thread:t1, N chars\"\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "memctx", "r1", "--json")
	if code != 0 || !strings.Contains(out, `"workingMemoryScope":"thread"`) || !strings.Contains(out, `"workingMemoryVersion":2`) {
		t.Errorf("memctx r1 --json: exit %d, want workingMemoryScope thread and workingMemoryVersion 2\n%s%s", code, out, stderr)
	}
}
