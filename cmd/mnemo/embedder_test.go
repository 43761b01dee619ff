package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// TestEmbedderSticky: a directory keeps the embedder it was written with.
// Without --embedder (auto) a hash-384 directory searches with hash-384
// even when use-lite is installed (before, it switched silently and
// searched a vector channel with 0 of N messages embedded); naming another
// embedder fails with the command that switches, and that command
// re-embeds every message so that check passes and auto follows the new
// embedder.
func TestEmbedderSticky(t *testing.T) {
	root, err := models.Dir(nil)
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(filepath.Join(models.Path(root, uselite.ID), uselite.ModelFile)); err != nil {
		t.Skipf("use-lite not installed (mnemo models fetch use-lite): %v", err)
	}
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "m.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t","resource":"r","role":"user","content":"the refund was approved on friday"}
{"thread":"t","resource":"r","role":"user","content":"tomatoes need sun"}
`), 0o600)
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", file); code != 0 { // hash-384 (see run)
		t.Fatalf("ingest: exit %d %s", code, stderr)
	}
	auto := map[string]string{"MNEMO_EMBEDDER": "auto"}
	code, out, stderr := run(t, auto, "--dir", dir, "search", "--resource", "r", "--json", "refund")
	if code != 0 || !strings.Contains(out, `"embedder": "hash-384"`) {
		t.Fatalf("auto search on a hash-384 directory: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = run(t, auto, "--dir", dir, "--embedder", "use-lite", "search", "--resource", "r", "refund")
	// The command to switch names the directory: without --dir it
	// re-embedded ./mnemo-data (readme54), with the directory given by
	// --dir or by $MNEMO_DIR.
	switchCmd := "mnemo --dir " + dir + " --embedder use-lite reindex --vectors"
	if code != 1 || !strings.Contains(stderr, "embedded with hash-384, not use-lite") || !strings.Contains(stderr, switchCmd) {
		t.Fatalf("search with another embedder: exit %d, %q; want 1 and the command to switch, %q", code, stderr, switchCmd)
	}
	code, _, stderr = run(t, map[string]string{"MNEMO_EMBEDDER": "auto", "MNEMO_DIR": dir}, "--embedder", "use-lite", "search", "--resource", "r", "refund")
	if code != 1 || !strings.Contains(stderr, switchCmd) {
		t.Fatalf("search with another embedder, $MNEMO_DIR: exit %d, %q; want 1 and the command to switch, %q", code, stderr, switchCmd)
	}
	if code, out, stderr := run(t, auto, "--dir", dir, "--embedder", "use-lite", "reindex", "--vectors"); code != 0 {
		t.Fatalf("reindex --vectors: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, auto, "--dir", dir, "check"); code != 0 {
		t.Fatalf("check after the switch: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, auto, "--dir", dir, "search", "--resource", "r", "--json", "refund")
	if code != 0 || !strings.Contains(out, `"embedder": "use-lite"`) {
		t.Fatalf("auto search after the switch: exit %d\n%s%s", code, out, stderr)
	}
}
