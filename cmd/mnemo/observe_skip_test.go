package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
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

// TestObserveRefusedThreadCalls is readme72 F6: mnemo observe against an
// endpoint that refuses every turn of a thread for its content (400
// content_filter), the short harmless probe answered, sent about
// log2(turns a chunk)+1 refused calls and a probe a turn, with no bound
// (2,148 calls for 586 turns). Now about one a turn: after two skips in a
// row the next turns go one at a time, and a probe answered stands for
// the next 8 skips within a minute. Here 56 turns, 8 a chunk, across the
// runs of the observer (16 calls each): every turn skipped, exit 0, 60
// refused calls and 7 probes (173 and 56 before).
func TestObserveRefusedThreadCalls(t *testing.T) {
	dir := longThreadsDir(t, "refused")
	var refused, probes atomic.Int64
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Lyon") {
			refused.Add(1)
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 400, Message: `The response was filtered due to the prompt triggering Azure OpenAI's content management policy.`}
		}
		probes.Add(1)
		return openaitest.Text(`{"observations":[]}`).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "refused", "--force", "--threshold", "400", "--recent", "4", "--no-reflect")
	skipped := strings.Count(out, "skipped    seq ")
	if code != 0 || skipped != 56 || refused.Load()+probes.Load() > 70 {
		t.Fatalf("observe exit %d, %d turns skipped, %d refused calls and %d probes; want exit 0, 56 skipped, at most 70 calls:\n%s\n%s",
			code, skipped, refused.Load(), probes.Load(), out, stderr)
	}
	t.Logf("%d refused calls, %d probes for %d turns", refused.Load(), probes.Load(), skipped)
}
