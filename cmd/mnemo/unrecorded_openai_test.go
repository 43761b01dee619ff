package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestEmbedsNothingOpenAIUnrecorded: on a directory that records no
// embedder yet, a command that embeds nothing but writes (wm set, check)
// records --embedder openai, as before 8eb3ca13, and one that only reads
// (threads, export) records nothing (rev48). After 8eb3ca13 left openai
// unbuilt for both, MNEMO_EMBEDDER=openai mnemo wm set on a new directory
// recorded hash-384 (or use-lite), and the next MNEMO_EMBEDDER=openai
// mnemo ingest was refused: "embedded with hash-384, not openai:m".
func TestEmbedsNothingOpenAIUnrecorded(t *testing.T) {
	srv := openaitest.New(t)
	empty := t.TempDir()
	t.Setenv(models.EnvDir, empty) // the engine reads the process's environment
	noModel := map[string]string{"MNEMO_EMBEDDER": "openai", models.EnvDir: empty, "OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey}
	env := map[string]string{"MNEMO_EMBED_MODEL": "m"}
	for k, v := range noModel {
		env[k] = v
	}
	state := filepath.Join(t.TempDir(), "s.md")
	file := filepath.Join(t.TempDir(), "m.jsonl")
	if err := errors.Join(os.WriteFile(state, []byte("# User\n"), 0o600),
		os.WriteFile(file, []byte(`{"thread":"t1","resource":"r","role":"user","content":"one more"}`+"\n"), 0o600)); err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "new")
	if code, out, stderr := run(t, env, "--dir", dir, "wm", "set", "--resource", "r", "--markdown", state); code != 0 || recordedIn(t, dir) != "openai:m" {
		t.Fatalf("MNEMO_EMBEDDER=openai wm set on a new directory: exit %d, recorded %q, want 0 and openai:m\n%s%s", code, recordedIn(t, dir), out, stderr)
	}
	if code, out, stderr := run(t, env, "--dir", dir, "ingest", file); code != 0 {
		t.Errorf("MNEMO_EMBEDDER=openai ingest after wm set: exit %d, want 0\n%s%s", code, out, stderr)
	}
	code, _, stderr := run(t, noModel, "--dir", filepath.Join(t.TempDir(), "new"), "wm", "set", "--resource", "r", "--markdown", state)
	if code != 2 || !strings.Contains(stderr, "MNEMO_EMBED_MODEL is not set") {
		t.Errorf("MNEMO_EMBEDDER=openai wm set on a new directory, no MNEMO_EMBED_MODEL: exit %d %q, want 2 naming MNEMO_EMBED_MODEL", code, stderr)
	}

	old := unrecordedDir(t)
	hash := map[string]string{"MNEMO_EMBEDDER": recall.HashID, models.EnvDir: empty}
	for _, env := range []map[string]string{noModel, env, hash} {
		for _, args := range [][]string{{"threads"}, {"export"}} {
			if code, out, stderr := run(t, env, append([]string{"--dir", old}, args...)...); code != 0 || recordedIn(t, old) != "" {
				t.Errorf("MNEMO_EMBEDDER=%s %v on a directory recording no embedder: exit %d, recorded %q, want 0 and nothing\n%s%s", env["MNEMO_EMBEDDER"], args, code, recordedIn(t, old), out, stderr)
			}
		}
	}
	code, _, stderr = run(t, noModel, "--dir", old, "check")
	if code != 2 || !strings.Contains(stderr, "MNEMO_EMBED_MODEL is not set") || recordedIn(t, old) != "" {
		t.Errorf("MNEMO_EMBEDDER=openai check on a directory recording no embedder, no MNEMO_EMBED_MODEL: exit %d %q, recorded %q, want 2 naming MNEMO_EMBED_MODEL, nothing", code, stderr, recordedIn(t, old))
	}
	if code, out, stderr := run(t, env, "--dir", old, "check"); code != 0 || recordedIn(t, old) != "openai:m" {
		t.Errorf("MNEMO_EMBEDDER=openai check on a directory recording no embedder: exit %d, recorded %q, want 0 and openai:m\n%s%s", code, recordedIn(t, old), out, stderr)
	}
}

// unrecordedDir returns a data directory that records no embedder, as one
// written before the record existed, with no vectors: one thread, t1,
// whose message is owed its embedding.
func unrecordedDir(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, KeepOutbox: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "crate A or crate B"}}})
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM journal WHERE scope = ? AND key = 'embedder'`, engine.ScopeMeta); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recordedIn returns the embedder dir's database records ("" when none).
func recordedIn(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []byte
	err = db.QueryRow(`SELECT output FROM journal WHERE scope = ? AND key = 'embedder'`, engine.ScopeMeta).Scan(&out)
	if errors.Is(err, sql.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
