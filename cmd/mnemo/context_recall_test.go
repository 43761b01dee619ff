package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextRecallDefaults: mnemo context turns recall on as POST
// /v1/context does: any recall flag (as the API's "recall" object) turns it
// on, and --top-k left out or 0 then means the default, 5; no recall flag
// means the directory's configured recall, else off, and a --query that
// recall then does not use is said on standard error (and in --json's
// notice, as POST /v1/context says it).
func TestContextRecallDefaults(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	var lines []string
	for i := range 12 {
		b, _ := json.Marshal(map[string]string{"thread": "t", "resource": "r", "role": []string{"user", "assistant"}[i%2],
			"content": []string{"the garden needs water", "I will bring the hose", "the tomatoes are ripe", "let us pick them"}[i%4] + " " + string(rune('a'+i))})
		lines = append(lines, string(b))
	}
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	for _, c := range []struct {
		name   string
		args   []string
		topK   int
		stderr string
	}{
		{"NoRecallFlag", nil, 0, ""},
		{"QueryOnly", []string{"--query", "garden"}, 0, "recall is off"},
		{"TopK", []string{"--top-k", "2"}, 2, ""},
		{"TopKZero", []string{"--top-k", "0"}, 5, ""},
		{"Scope", []string{"--scope", "thread"}, 5, ""},
		{"Mode", []string{"--mode", "lexical", "--query", "garden"}, 5, ""},
		{"Range", []string{"--range", "1"}, 5, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--dir", dir, "context", "--thread", "t", "--recent", "2", "--json"}, c.args...)
			code, out, stderr := run(t, nil, args...)
			if code != 0 {
				t.Fatalf("exit %d, %s", code, stderr)
			}
			var got struct {
				Notice string
				MemCtx struct {
					Options  struct{ TopK int }
					Recalled []any
				}
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if got.MemCtx.Options.TopK != c.topK {
				t.Errorf("memctx topK %d, want %d", got.MemCtx.Options.TopK, c.topK)
			}
			if c.topK > 0 && len(got.MemCtx.Recalled) == 0 {
				t.Errorf("recall on, nothing recalled")
			}
			if c.stderr == "" && stderr != "" || !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q, want %q", stderr, c.stderr)
			}
			// --json prints what POST /v1/context answers, its notice too.
			if c.stderr == "" && got.Notice != "" || !strings.Contains(got.Notice, c.stderr) {
				t.Errorf("notice %q, want %q", got.Notice, c.stderr)
			}
		})
	}
}
