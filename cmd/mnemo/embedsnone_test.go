package main

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/openaitest"
)

// TestEmbedsNoneOpenAIUnbuilt: a command that embeds, run with flags that
// embed nothing of its own (context without a recall flag, reindex
// without --vectors), leaves --embedder openai unbuilt on a hash-384
// directory: MNEMO_EMBEDDER=openai without MNEMO_EMBED_MODEL runs them
// (exit 0, no embedding request). Before (walk48 F8), both exited 2
// "MNEMO_EMBED_MODEL is not set". With a recall flag or --vectors they
// embed, and still refuse at once naming the variable.
func TestEmbedsNoneOpenAIUnbuilt(t *testing.T) {
	var calls atomic.Int64
	hash := openaitest.HashEmbed(openaitest.DefaultDims)
	srv := openaitest.New(t, openaitest.WithEmbed(func(req openaitest.EmbedRequest) ([][]float32, error) {
		calls.Add(1)
		return hash(req)
	}))
	dir := t.TempDir()
	if code, _, errOut := run(t, map[string]string{"MNEMO_EMBEDDER": "hash-384"}, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	env := map[string]string{"MNEMO_EMBEDDER": "openai", "OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"context", "--thread", "t0"}, 0},
		{[]string{"context", "--thread", "t0", "--query", "crate"}, 0},
		{[]string{"reindex"}, 0},
		{[]string{"context", "--thread", "t0", "--top-k", "3"}, 2},
		{[]string{"reindex", "--vectors"}, 2},
	} {
		code, out, errOut := run(t, env, append([]string{"--dir", dir}, tc.args...)...)
		if code != tc.code || (code == 2) != strings.Contains(errOut, "MNEMO_EMBED_MODEL is not set") {
			t.Errorf("MNEMO_EMBEDDER=openai, no MNEMO_EMBED_MODEL: %v: exit %d, want %d\n%s%s", tc.args, code, tc.code, out, errOut)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d embedding requests, want none", n)
	}
}
