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

// TestObserveSaysSkipped is obs68: mnemo observe against an endpoint
// that refuses one turn's content (seq 3, a tool result) observes the
// rest and says on stdout which seqs it skipped (its tool-call group,
// 2..4: a range never splits one) and that it is sent again once, only
// under another observe.model (2a0d97ee; it said "not sent again"); the
// flagged turn is not sent again by the next run, under the same model.
func TestObserveSaysSkipped(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join(".", "../../demodata/conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	flagged := 0
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, `"seq":3,`) {
			flagged++
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 403, Message: `fake-observer requires moderation. Your input was flagged for "harassment".`}
		}
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Ana plans a trip to Porto","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "4", "--no-reflect")
	if code != 0 || !regexp.MustCompile(`(?m)^skipped    seq 2–4  \(the model endpoint refused their content: not observed; sent again once, only under another observe\.model\)$`).MatchString(out) {
		t.Fatalf("observe exit %d, want 0 and the tool-call group 2–4 holding seq 3 skipped on stdout:\n%s\n%s", code, out, stderr)
	}
	sent := flagged
	if code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "2", "--no-reflect"); code != 0 || flagged != sent {
		t.Fatalf("second observe exit %d, seq 3 sent %d more times (want none):\n%s\n%s", code, flagged-sent, out, stderr)
	}
}

// TestObserveAllContentRefused is obs70 item 1: mnemo observe against an
// endpoint that refuses every prompt for its content, a short harmless
// probe's too, skips nothing (it skipped every turn, for good), exits 1
// and says on stdout that every model call backs off and why.
func TestObserveAllContentRefused(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join(".", "../../demodata/conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 400, Message: `The response was filtered due to the prompt triggering Azure OpenAI's content management policy.`}
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "4", "--no-reflect")
	if code != 1 || strings.Contains(out, "skipped") || !regexp.MustCompile(`(?m)^every model call backs off until .*: observe: the model endpoint refuses the content of every prompt`).MatchString(out) ||
		!strings.Contains(stderr, "refuses the content of every prompt") {
		t.Fatalf("observe exit %d, want 1, nothing skipped, every call backing off on stdout:\n%s\n%s", code, out, stderr)
	}
}
