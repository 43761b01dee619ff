package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserveSaysChunkCap is readme65 F7: mnemo observe against an
// endpoint that answers 400 context_length_exceeded printed only the
// final error (the CLI logs no WARN), not the advice the observer's WARN
// line carries. Now it says on stderr to what the chunks were cut and to
// lower observe.chunkTokens to it, whether the smaller chunks passed
// (exit 0) or every one was refused (exit 1).
func TestObserveSaysChunkCap(t *testing.T) {
	advice := regexp.MustCompile(`chunks were cut to (\d+) tokens for this run: lower observe\.chunkTokens to at most (\d+) in mnemo\.json`)
	for _, c := range []struct {
		name   string
		window int // turns the fake model's context holds; 0: none
		code   int
	}{
		{"cut", 4, 0},
		{"always", 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join(".", "../../demodata/conversation.jsonl")); code != 0 {
				t.Fatalf("ingest exit %d: %s", code, stderr)
			}
			srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
				if n := strings.Count(req.Messages[len(req.Messages)-1].Content, `"seq"`); n > c.window {
					return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 400, Code: "context_length_exceeded",
						Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.", c.window*50, n*50)}
				}
				return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Ana plans a trip to Porto","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
			}))
			env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
			code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "4", "--no-reflect")
			m := advice.FindStringSubmatch(stderr)
			if code != c.code || m == nil || m[1] != m[2] {
				t.Fatalf("observe exit %d (want %d), want the chunk cap advice on stderr:\n%s\n%s", code, c.code, stderr, out)
			}
		})
	}
}
