package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/recall/uselite"
)

// TestEmbedsNothingLazy: the commands that embed nothing open a use-lite
// directory without loading use-lite (walk43 F7): with its weights absent
// they run (before: exit 1, "was embedded with use-lite, which cannot be
// loaded"), and a --embedder other than the directory's is not refused
// (before: exit 1, "was embedded with use-lite, not hash-384"). A command
// that embeds still refuses both, before writing anything.
func TestEmbedsNothingLazy(t *testing.T) {
	dir := useLiteDir(t)
	empty := t.TempDir()
	t.Setenv(models.EnvDir, empty) // the engine reads the process's environment
	auto := map[string]string{"MNEMO_EMBEDDER": "auto", models.EnvDir: empty}
	hash := map[string]string{"MNEMO_EMBEDDER": recall.HashID, models.EnvDir: empty}
	reads := [][]string{{"threads"}, {"messages", "--thread", "t1"}, {"export"}, {"runs"},
		{"wm", "get", "--thread", "t1"}, {"observations", "--thread", "t1"}, {"check"}}
	for _, env := range []map[string]string{auto, hash} {
		for _, args := range reads {
			code, out, stderr := run(t, env, append([]string{"--dir", dir}, args...)...)
			if args[0] == "wm" && code == 1 && strings.Contains(stderr, "no working memory stored") {
				continue // wm get's answer when none is stored
			}
			if code != 0 {
				t.Errorf("MNEMO_EMBEDDER=%s %v: exit %d\n%s%s", env["MNEMO_EMBEDDER"], args, code, out, stderr)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "m.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t1","resource":"r","role":"user","content":"one more"}`+"\n"), 0o600)
	code, _, stderr := run(t, hash, "--dir", dir, "ingest", file)
	if code != 1 || !strings.Contains(stderr, "embedded with use-lite, not hash-384") {
		t.Errorf("ingest with hash-384: exit %d %q, want 1 and the mismatch", code, stderr)
	}
	code, _, stderr = run(t, auto, "--dir", dir, "ingest", file)
	if code != 1 || !strings.Contains(stderr, "use-lite is not installed in "+empty) {
		t.Errorf("ingest without use-lite: exit %d %q, want 1 and not installed", code, stderr)
	}
	code, _, stderr = run(t, hash, "--dir", dir, "search", "--resource", "r", "crate")
	if code != 1 || !strings.Contains(stderr, "embedded with use-lite, not hash-384") {
		t.Errorf("search with hash-384: exit %d %q, want 1 and the mismatch", code, stderr)
	}
	if code, out, stderr := run(t, auto, "--dir", dir, "messages", "--thread", "t1", "--json"); code != 0 || strings.Contains(out, "one more") {
		t.Errorf("after the refused ingests: exit %d %s%s, want the message not written", code, out, stderr)
	}
}

// useLiteDir returns a data directory recorded with use-lite, written
// without its weights: one thread, t1 of resource r, embedded by hash-384
// padded to use-lite's 512 dimensions.
func useLiteDir(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: padded512{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: []engine.Message{
		{Role: "user", Content: "compare shipping quotes for crate A and crate B"},
		{Role: "assistant", Content: "B is cheaper, A is faster"},
	}})
	if err == nil {
		err = e.SyncIndexes(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// padded512 is hash-384 padded with zeros to 512 dimensions under
// use-lite's id.
type padded512 struct{}

func (padded512) ID() string { return uselite.ID }
func (padded512) Dims() int  { return uselite.Dims }

func (padded512) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := recall.HashEmbedder{}.Embed(ctx, texts)
	for i, v := range vs {
		vs[i] = append(v, make([]float32, uselite.Dims-len(v))...)
	}
	return vs, err
}

// TestCheckOwedNotInstalled: mnemo check of a use-lite directory whose
// weights are not installed, with messages owed their embeddings, says
// why they are owed (rev47, after 77c9548). Before, it listed them
// missing from the vector index and said only "run mnemo reindex", which
// cannot embed them either (it fails: use-lite is not installed).
func TestCheckOwedNotInstalled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: failing512{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: []engine.Message{
		{Role: "user", Content: "compare shipping quotes for crate A and crate B"},
	}})
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	t.Setenv(models.EnvDir, empty)
	code, _, stderr := run(t, map[string]string{"MNEMO_EMBEDDER": "auto", models.EnvDir: empty}, "--dir", dir, "check")
	if code != 1 || !strings.Contains(stderr, "owed, not lost (their messages are indexed lexically): use-lite is not installed in "+empty) ||
		!strings.Contains(stderr, "mnemo --dir "+dir+" check) embeds them on their next retry") {
		t.Errorf("check: exit %d\n%s\nwant 1 and why the embeddings are owed", code, stderr)
	}
}

// failing512 is an embedder under use-lite's id whose every Embed fails,
// as an endpoint that is down: the messages appended stay owed their
// embeddings.
type failing512 struct{}

func (failing512) ID() string { return uselite.ID }
func (failing512) Dims() int  { return uselite.Dims }

func (failing512) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("endpoint down")
}
