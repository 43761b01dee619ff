package main

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/models"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestEmbedsNothingOpenAIUnbuilt: a command that embeds nothing leaves
// --embedder openai unbuilt (emb48, after 77c9548): on a use-lite
// directory, MNEMO_EMBEDDER=openai without MNEMO_EMBED_MODEL no longer
// fails mnemo threads, export, runs or check (before: exit 2, "the
// openai embedder: MNEMO_EMBED_MODEL is not set"), and none of them sends
// the dimension probe. A directory recorded with an OpenAI-compatible model
// still needs it, and says so naming the variable; with it the read
// runs. A command that embeds (search) still refuses at once.
func TestEmbedsNothingOpenAIUnbuilt(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	hash := openaitest.HashEmbed(openaitest.DefaultDims)
	srv := openaitest.New(t, openaitest.WithEmbed(func(req openaitest.EmbedRequest) ([][]float32, error) {
		calls.Add(1)
		return hash(req)
	}))
	dir := useLiteDir(t)
	empty := t.TempDir()
	t.Setenv(models.EnvDir, empty)
	unset := map[string]string{"MNEMO_EMBEDDER": "openai", models.EnvDir: empty, "OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey}
	for _, args := range [][]string{{"threads"}, {"export"}, {"runs"}, {"messages", "--thread", "t1"}, {"check"}} {
		if code, out, stderr := run(t, unset, append([]string{"--dir", dir}, args...)...); code != 0 {
			t.Errorf("MNEMO_EMBEDDER=openai, no MNEMO_EMBED_MODEL: %v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	set := map[string]string{"MNEMO_EMBED_MODEL": "m"}
	for k, v := range unset {
		set[k] = v
	}
	if code, out, stderr := run(t, set, "--dir", dir, "threads"); code != 0 || calls.Load() != 0 {
		t.Errorf("MNEMO_EMBEDDER=openai MNEMO_EMBED_MODEL=m threads: exit %d, %d embed calls\n%s%s, want 0 and none", code, calls.Load(), out, stderr)
	}
	code, _, stderr := run(t, unset, "--dir", dir, "search", "--resource", "r", "crate")
	if code != 2 || !strings.Contains(stderr, "MNEMO_EMBED_MODEL is not set") {
		t.Errorf("search with openai, no MNEMO_EMBED_MODEL: exit %d %q, want 2 naming MNEMO_EMBED_MODEL", code, stderr)
	}

	odir := t.TempDir()
	emb, err := recall.NewOpenAIEmbedder(ctx, recall.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: odir, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r", Messages: []engine.Message{{Role: "user", Content: "crate A or crate B"}}})
	if err == nil {
		err = e.SyncIndexes(ctx)
	}
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = run(t, unset, "--dir", odir, "threads")
	if code != 2 || !strings.Contains(stderr, "MNEMO_EMBED_MODEL is not set") {
		t.Errorf("threads of a directory embedded with openai:m, no MNEMO_EMBED_MODEL: exit %d %q, want 2 naming MNEMO_EMBED_MODEL", code, stderr)
	}
	if code, out, stderr := run(t, set, "--dir", odir, "threads"); code != 0 || !strings.Contains(out, "t1") {
		t.Errorf("threads of a directory embedded with openai:m, MNEMO_EMBED_MODEL=m: exit %d\n%s%s", code, out, stderr)
	}
}
