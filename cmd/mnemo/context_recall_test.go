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

// TestContextNamesRun: mnemo context's output names its run on the line
// "run RUN_ID · thread T · resource R · TIME" under "── memctx ──", and
// that RUN_ID is the one mnemo memctx prints and mnemo runs lists: the
// README's CLI tour says to take RUN_ID from there.
func TestContextNamesRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t1","resource":"r","role":"user","content":"hello cats"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--top-k", "5", "--query", "cats")
	_, memctx, ok := strings.Cut(out, "\n── memctx ──\n")
	if code != 0 || !ok {
		t.Fatalf("context: exit %d, no memctx part\n%s%s", code, out, stderr)
	}
	first, _, _ := strings.Cut(memctx, "\n")
	runID, rest, ok := strings.Cut(strings.TrimPrefix(first, "run "), " · ")
	if !strings.HasPrefix(first, "run ") || !ok || !strings.HasPrefix(rest, "thread t1 · resource r · ") {
		t.Fatalf("the memctx part's first line is %q, want \"run RUN_ID · thread t1 · resource r · TIME\"", first)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "memctx", runID); code != 0 || !strings.Contains(out, first) {
		t.Errorf("memctx %s: exit %d, lacks %q\n%s%s", runID, code, first, out, stderr)
	}
	if code, out, stderr := run(t, nil, "--dir", dir, "runs"); code != 0 || !strings.Contains(out, runID) {
		t.Errorf("runs: exit %d, lacks %s\n%s%s", code, runID, out, stderr)
	}
}

// TestContextUnknownThread: readme51 F9. mnemo context on a thread with
// no turns said only "thread not found", while POST /v1/context starts a
// new conversation there; now it says that the CLI loads only a stored
// thread, and how to list or store one. Nothing is recorded.
func TestContextUnknownThread(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(file, []byte(`{"thread":"t1","resource":"ana","role":"user","content":"hello"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 {
		t.Fatalf("ingest: exit %d, %s", code, stderr)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "nope", "--resource", "ana", "--query", "hi")
	if code != 1 || out != "" || !strings.Contains(stderr, `thread not found: "nope"`) ||
		!strings.Contains(stderr, "mnemo context loads only a stored thread") || !strings.Contains(stderr, "to list the stored threads, run: mnemo --dir "+dir+" threads") {
		t.Fatalf("context on an unknown thread: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "runs"); code != 0 || strings.Contains(out, "nope") {
		t.Errorf("runs after the refused context: exit %d, %q, want no run", code, out)
	}
}
