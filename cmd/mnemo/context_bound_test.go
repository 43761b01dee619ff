package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestContextAnswerBoundUnobserved: mnemo context on a thread whose
// observer is behind (observed once, then six messages of 100 KB) holds
// the unobserved tail in its recent window whatever --recent; past
// limits.maxAnswerBytes it says so and names what shrinks it (mnemo
// observe, observe.maxUnobservedTokens), exit 1. It said "lower
// --recent", which changes nothing.
func TestContextAnswerBoundUnobserved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ingestTurns(t, dir, "small.jsonl", [2]string{"user", "assistant"}, "hello", "hi", "how are you", "fine")
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"the user says hello","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	if code, out, stderr := run(t, env, "--dir", dir, "observe", "--thread", "t1", "--force", "--recent", "1", "--no-reflect"); code != 0 || !strings.Contains(out, "watermark ") {
		t.Fatalf("observe: exit %d %s\n%s", code, stderr, out)
	}
	var big []string
	for i := range 6 {
		big = append(big, fmt.Sprintf("harbour note %d ", i)+strings.Repeat("lantern ", 100_000/8))
	}
	ingestTurns(t, dir, "big.jsonl", [2]string{"user", "assistant"}, big...)
	// The hint is what mnemo observe would do (mnemo context has no
	// model: the engine plans as its observer would): it said "the
	// observer is behind: run mnemo observe --thread t1" in each case.
	for _, c := range []struct{ name, config, want string }{
		// The 7 unobserved messages are in the observer's recent window
		// (10): mnemo observe, even --force, observes none of them.
		{"InRecentWindow", `{"limits": {"maxAnswerBytes": 300000}, "observe": {"maxUnobservedTokens": -1}}`,
			"the observer never observes its recent window, and it holds them all: run mnemo observe --thread t1 --force --recent N (N below the observer's recent window), or lower observe.maxUnobservedTokens in mnemo.json"},
		// Its recent window is 2: 5 of them, 125,000 tokens, reach the
		// threshold (30,000).
		{"Due", `{"recentN": 2, "limits": {"maxAnswerBytes": 300000}, "observe": {"maxUnobservedTokens": -1}}`,
			"the observer is behind: run mnemo observe --thread t1, or lower observe.maxUnobservedTokens in mnemo.json"},
		// Under the threshold mnemo observe without --force observes nothing.
		{"UnderThreshold", `{"recentN": 2, "limits": {"maxAnswerBytes": 300000}, "observe": {"threshold": 1000000, "maxUnobservedTokens": -1}}`,
			"the observer waits until they reach observe.threshold tokens: run mnemo observe --thread t1 --force, or lower observe.maxUnobservedTokens in mnemo.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			writeConfig(t, dir, c.config)
			code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--recent", "1")
			if code != 1 || !strings.Contains(stderr, "the recent window passes 300000 bytes (limits.maxAnswerBytes in mnemo.json)") || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "lower --recent") {
				t.Fatalf("context over the bound: exit %d, stderr %q; want 1 and %q", code, stderr, c.want)
			}
		})
	}
}

// TestContextAnswerBoundPending: mnemo context whose thread ends in a
// pending turn (five user messages of 100 KB no answer follows) over
// limits.maxAnswerBytes fails naming the pending turn and no flag, exit
// 1: the window holds the whole turn whatever --recent, and it was read
// uncounted (the context printed 500 KB under a bound of 300 KB).
func TestContextAnswerBoundPending(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var pending []string
	for i := range 5 {
		pending = append(pending, fmt.Sprintf("question part %d ", i)+strings.Repeat("lantern ", 100_000/8))
	}
	ingestTurns(t, dir, "hello.jsonl", [2]string{"user", "assistant"}, "hello", "hi")
	ingestTurns(t, dir, "pending.jsonl", [2]string{"user", "user"}, pending...)
	writeConfig(t, dir, `{"limits": {"maxAnswerBytes": 300000}}`)
	code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t1", "--recent", "1")
	want := "the thread's pending turn (5 messages no assistant answer follows yet, which the recent window always holds) passes 300000 bytes (limits.maxAnswerBytes in mnemo.json); no flag shrinks it"
	if code != 1 || out != "" || !strings.Contains(stderr, want) || strings.Contains(stderr, "--recent") {
		t.Fatalf("context over the bound: exit %d, stdout %.100q, stderr %q; want 1 and %q", code, out, stderr, want)
	}
}

// ingestTurns imports contents into thread t1 of resource r of the data
// directory dir with mnemo ingest, their roles alternating roles[0],
// roles[1].
func ingestTurns(t *testing.T, dir, name string, roles [2]string, contents ...string) {
	t.Helper()
	var lines []string
	for i, c := range contents {
		b, _ := json.Marshal(map[string]any{"thread": "t1", "resource": "r", "role": roles[i%2], "content": c})
		lines = append(lines, string(b))
	}
	in := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", in); code != 0 {
		t.Fatalf("ingest %s: %d %s", name, code, stderr)
	}
}

// writeConfig writes dir's mnemo.json.
func writeConfig(t *testing.T, dir, cfg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}
