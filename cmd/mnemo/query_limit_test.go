package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueryTooLong: a query over the engine's limit (16 KiB) is a usage
// error naming the query and the limit, in search (argument and --queries
// line) and context; a message as long is stored, and as context's
// implicit query it is cut, not refused. The message has no "engine:" and
// no hint to read the flags (they were right).
func TestQueryTooLong(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("porto ", 3000) // 18,000 bytes
	file := filepath.Join(t.TempDir(), "c.jsonl")
	line, _ := json.Marshal(map[string]string{"thread": "t", "resource": "r", "role": "user", "content": long})
	os.WriteFile(file, append(line, '\n'), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest of a long message: exit %d, %s", code, stderr)
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	line, _ = json.Marshal(map[string]string{"id": "q1", "resource": "r", "query": long})
	os.WriteFile(queries, append(line, '\n'), 0o600)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"Search", []string{"search", "--resource", "r", long}},
		{"SearchQueries", []string{"search", "--queries", queries}},
		{"Context", []string{"context", "--thread", "t", "--top-k", "2", "--query", long}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
			if code != 2 || !strings.Contains(stderr, "invalid query: at most 16384 bytes, got 18000") {
				t.Fatalf("exit %d, stderr %.300q; want 2 and the query's limit", code, stderr)
			}
			// The flags were right: no hint to read them, no package prefix.
			if strings.Contains(stderr, "for the flags") || strings.Contains(stderr, "engine:") {
				t.Errorf("stderr %.300q: want the limit only, without 'engine:' or the -h hint", stderr)
			}
		})
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t", "--top-k", "2"); code != 0 {
		t.Fatalf("context with the long message as its implicit query: exit %d, %.300s", code, stderr)
	}
}
