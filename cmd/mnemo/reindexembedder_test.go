package main

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/openaitest"
)

// TestReindexSaysKeptEmbedder: fix52. mnemo reindex without --vectors,
// with openai named, on a hash-384 directory ran with hash-384 and said
// nothing of it. It still runs (exit 0, no embedding request: walk48 F8),
// and says which embedder it uses, why, and how to switch; where the
// name came from too. Nothing is said when the names agree.
func TestReindexSaysKeptEmbedder(t *testing.T) {
	srv := openaitest.New(t)
	dir := t.TempDir()
	if code, _, errOut := run(t, map[string]string{"MNEMO_EMBEDDER": "hash-384"}, "--dir", dir, "ingest", writeJSONL(t, 3, nil)); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	openai := map[string]string{"MNEMO_EMBEDDER": "openai", "OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey}
	for _, c := range []struct {
		env  map[string]string
		args []string
		from string // "" for no note
	}{
		{openai, []string{"reindex"}, "$MNEMO_EMBEDDER"},
		{map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey}, []string{"--embedder", "openai", "reindex"}, "--embedder"},
		{map[string]string{"MNEMO_EMBEDDER": "hash-384"}, []string{"reindex"}, ""},
		{nil, []string{"--embedder", "auto", "reindex"}, ""},
	} {
		code, out, errOut := run(t, c.env, append([]string{"--dir", dir}, c.args...)...)
		want := "mnemo reindex: note: " + c.from + " names openai, but " + dir + " is embedded with hash-384: without --vectors reindex keeps the stored embeddings and uses hash-384; to re-embed every message with openai, run: mnemo --dir " + dir + " --embedder openai reindex --vectors\n"
		if c.from == "" {
			want = ""
		}
		if code != 0 || !strings.HasPrefix(out, "reindexed in ") || errOut != want {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want 0 and stderr %q", c.env, c.args, code, out, errOut, want)
		}
	}
}
