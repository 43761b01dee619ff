package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

func TestObserveCommand(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join(".", "../../demodata/conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		data := req.Messages[len(req.Messages)-1].Content
		if strings.HasPrefix(data, "<conversation") {
			return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Ana plans a train trip from Lyon to Porto","seqs":[%d]},{"text":"search found two trains","seqs":[%d]}]}`,
				enginetest.ChunkSeq(req, 0), enginetest.ChunkSeq(req, 2))).Response, nil
		}
		return openaitest.Text(`{"reflection":[{"text":"Ana is going to Porto"}]}`).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}

	if code, _, stderr := run(t, nil, "--dir", dir, "observe", "--thread", "ana:trip-planning"); code != 1 || !strings.Contains(stderr, "MNEMO_MODEL") {
		t.Fatalf("observe without a model: exit %d, stderr %q", code, stderr)
	}
	// ana:today's 3 turns are all in the default recent window: a forced
	// observe observes nothing and says why ("pending 0 turns" alone did not).
	if code, _, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:today", "--force"); code != 0 || !strings.Contains(stderr, "nothing observed: seqs 1–3 are in the recent window") {
		t.Fatalf("observe of a thread inside its recent window: exit %d, stderr %q", code, stderr)
	}
	code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "4", "--no-reflect")
	if code != 0 {
		t.Fatalf("observe exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "observed ") || !strings.Contains(out, "watermark ") {
		t.Fatalf("observe output:\n%s", out)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "observations", "--thread", "ana:trip-planning", "--json")
	if code != 0 {
		t.Fatalf("observations exit %d: %s", code, stderr)
	}
	var obs []observe.Observation
	if err := json.Unmarshal([]byte(out), &obs); err != nil {
		t.Fatalf("observations --json: %v\n%s", err, out)
	}
	if len(obs) == 0 || obs[0].FromSeq != 1 || obs[len(obs)-1].ToSeq > 8 {
		t.Fatalf("observations %+v", obs)
	}
	if !obs[0].Untrusted || !strings.Contains(obs[0].Content, observe.UntrustedMark+"search found two trains") {
		t.Fatalf("tool-derived item not marked untrusted: %q", obs[0].Content)
	}
	code, out, _ = run(t, nil, "--dir", dir, "observations", "--resource", "ana")
	if code != 0 || !strings.Contains(out, "ana:trip-planning  seq 1–") || !strings.Contains(out, "live") {
		t.Fatalf("observations --resource exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{
		{"--dir", dir, "observations"},
		{"--dir", dir, "observations", "--thread", "a", "--resource", "b"},
		{"--dir", dir, "observe"},
	} {
		if code, _, stderr := run(t, env, args...); code != 2 || !strings.Contains(stderr, "usage") {
			t.Errorf("mnemo %v: exit %d, stderr %q; want 2 and a usage hint", args, code, stderr)
		}
	}
}

// TestObserveNothingKept: chunks the observer finds nothing worth keeping
// in ({"observations":[]}) are observed: mnemo observe says so for each,
// mnemo observations leaves them out, and --all lists them as such.
// Before, the empty list failed the command ("observe: model returned an
// empty answer") and the chunk stayed unobserved.
func TestObserveNothingKept(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join(".", "../../demodata/conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(`{"observations":[]}`).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "4", "--no-reflect")
	if code != 0 || !strings.Contains(out, "(nothing worth keeping)") {
		t.Fatalf("observe exit %d: %s\n%s", code, stderr, out)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "observations", "--thread", "ana:trip-planning"); code != 0 || !strings.Contains(out, "(no observations)") {
		t.Fatalf("observations exit %d:\n%s", code, out)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "observations", "--thread", "ana:trip-planning", "--all"); code != 0 || !strings.Contains(out, "live, nothing worth keeping") {
		t.Fatalf("observations --all exit %d:\n%s", code, out)
	}
}
