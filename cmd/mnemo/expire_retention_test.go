package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestExpirePrunesRuns: `mnemo expire` applies the stored
// retention.maxAge to every thread's run records, also a thread that
// loads no context again (walk35: they stayed, query text included), and
// says how many it pruned (--dry-run: would prune, and deletes nothing).
func TestExpirePrunesRuns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	past := time.Now().Add(-3 * time.Hour)
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Now: func() time.Time { return past }})
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range []string{"x0", "x1", "x2"} {
		if i == 0 {
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "x", ResourceID: "ana",
				Messages: []engine.Message{{Role: "user", Content: "the secret plan"}}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "x", ResourceID: "ana", Query: "secret plan"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"retention":{"maxAge":"1h"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"expire", "--dry-run"}, {"expire"}} {
		want := "3 run records older than retention.maxAge pruned"
		if len(args) == 2 {
			want = "3 run records older than retention.maxAge would be pruned"
		}
		if code, out, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...); code != 0 || !strings.Contains(out, want) {
			t.Fatalf("%q: code %d, want %q in\n%s%s", args, code, want, out, stderr)
		}
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{}); err != nil || len(runs) != 0 {
		t.Fatalf("runs after mnemo expire: %+v, %v; want none", runs, err)
	}
}
