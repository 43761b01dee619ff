package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWMSetResourceWithoutThreads: a resource exists only by its threads
// (docs/working-memory.md), so `wm get --resource R` of one without any says that no
// working memory is stored (exit 0), and `wm set --resource R` stores its
// state, as PUT /v1/resources/R/working-memory does, for the contexts of
// its first thread; but it notes on standard error that R has no threads
// yet, where a mistyped id was stored silently. A resource with threads
// gets no note.
func TestWMSetResourceWithoutThreads(t *testing.T) {
	dir := t.TempDir()
	msgs := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(msgs, []byte(`{"thread":"t1","resource":"u1","role":"user","content":"hi"}`+"\n"), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", msgs); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	state := filepath.Join(t.TempDir(), "s.md")
	os.WriteFile(state, []byte("# profile\n"), 0o600)

	code, stdout, stderr := run(t, nil, "--dir", dir, "wm", "get", "--resource", "ghost")
	if code != 0 || !strings.Contains(stdout, "resource:ghost: no working memory stored") {
		t.Fatalf("wm get --resource ghost: exit %d, stdout %q, stderr %q; want 0 and no working memory stored", code, stdout, stderr)
	}
	code, _, stderr = run(t, nil, "--dir", dir, "wm", "set", "--resource", "ghost", "--markdown", state)
	if code != 0 {
		t.Fatalf("wm set --resource ghost: exit %d: %s", code, stderr)
	}
	if want := `resource "ghost" has no threads yet`; !strings.Contains(stderr, want) {
		t.Errorf("wm set --resource ghost: stderr %q lacks %q", stderr, want)
	}
	code, _, stderr = run(t, nil, "--dir", dir, "wm", "set", "--resource", "u1", "--markdown", state)
	if code != 0 || strings.Contains(stderr, "no threads") {
		t.Errorf("wm set --resource u1: exit %d, stderr %q; want 0 and no note", code, stderr)
	}
}
