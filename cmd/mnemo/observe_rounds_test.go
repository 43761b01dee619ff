package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserveForceObservesEverything is readme71 F2: `mnemo observe
// --force` promises every unobserved turn older than the recent window,
// but stopped after observe.DefaultMaxRounds (16) model calls with 24
// turns still due, exit 0, saying nothing. It now goes on, a run of the
// observer after another, until nothing is left; without --force it
// goes on while turns are due. Here 60 turns of about 50 tokens under a
// threshold of 120 make some 28 chunks.
func TestObserveForceObservesEverything(t *testing.T) {
	dir := longThreadsDir(t, "forced", "due")
	var calls atomic.Int64
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		calls.Add(1)
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"a train leaves at seven","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}

	t.Run("Force", func(t *testing.T) {
		code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "forced", "--force", "--threshold", "120", "--recent", "4", "--no-reflect")
		observed := strings.Count(out, "observed ")
		if code != 0 || !strings.Contains(out, "watermark 56; pending 0 turns") || int64(observed) != calls.Load() || observed <= observe.DefaultMaxRounds {
			t.Fatalf("observe --force: exit %d, %d observed lines, %d model calls (want more than %d, all of them, and pending 0):\n%s\n%s",
				code, observed, calls.Load(), observe.DefaultMaxRounds, out, stderr)
		}
	})
	t.Run("Due", func(t *testing.T) {
		calls.Store(0)
		code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "due", "--threshold", "120", "--recent", "4", "--no-reflect", "--json")
		var res observe.Result
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.Pending.Due || len(res.Observations) <= observe.DefaultMaxRounds || res.MaxRoundsReached || int64(len(res.Observations)) != calls.Load() {
			t.Fatalf("observe --json: exit %d, %v, %d model calls:\n%s\n%s", code, err, calls.Load(), out, stderr)
		}
	})
}

// longThreadsDir returns a data directory holding the threads named, each
// of 60 turns of about 50 tokens (user and assistant in turn, resource
// "r", ids "<thread>-<i>"), ingested through mnemo ingest.
func longThreadsDir(t *testing.T, threads ...string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "long.jsonl")
	var b strings.Builder
	for _, thread := range threads {
		for i := range 60 {
			role := []string{"user", "assistant"}[i%2]
			fmt.Fprintf(&b, `{"thread":%q,"resource":"r","id":"%s-%d","role":%q,"content":"turn %d: %s"}`+"\n",
				thread, thread, i, role, i, strings.Repeat("the train from Lyon to Porto leaves at seven ", 4))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", path); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	return dir
}
