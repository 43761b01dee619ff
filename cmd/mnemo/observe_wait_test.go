package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserveSaysWaiting (Postgres): a mnemo observe of a thread another
// process is observing says on stderr that it waits for it, while it
// waits (it printed nothing for as long as the other's model took), then
// finishes once the other does.
func TestObserveSaysWaiting(t *testing.T) {
	dsn := pgtest.DSN(t)
	if code, _, stderr := run(t, nil, "--db", dsn, "ingest", "../../demodata/conversation.jsonl"); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	release := make(chan struct{})
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		<-release
		return openaitest.Text(`{"observations":[{"text":"Ana plans a train trip from Lyon to Porto"}]}`).Response, nil
	}))
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the server closes, which waits for its handlers
	env := map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": openaitest.DefaultAPIKey, "MNEMO_MODEL": "fake-observer"}
	args := []string{"--db", dsn, "observe", "--thread", "ana:trip-planning", "--force", "--recent", "4", "--no-reflect"}

	first := make(chan struct{})
	go func() {
		defer close(first)
		if code, _, stderr := run(t, env, args...); code != 0 {
			t.Errorf("the first observe exit %d: %s", code, stderr)
		}
	}()
	t.Cleanup(func() { free(); <-first }) // before the schema is dropped
	waitUntil(t, "the first observe's model call", func() bool { return srv.Count(openaitest.PathChat) > 0 })

	var stderr enginetest.SyncBuffer
	second := make(chan int, 1)
	go func() {
		m := &Main{Stdin: strings.NewReader(""), Stdout: &enginetest.SyncBuffer{}, Stderr: &stderr, Getenv: func(k string) string {
			if k == "MNEMO_EMBEDDER" {
				return "hash-384"
			}
			return env[k]
		}}
		second <- m.Run(context.Background(), args)
	}()
	waitUntil(t, "the second observe to say it waits", func() bool {
		return strings.Contains(stderr.String(), "mnemo observe: waiting for another process observing thread ana:trip-planning")
	})
	select {
	case code := <-second:
		t.Fatalf("the second observe ended (exit %d) while the first held the thread: %s", code, stderr.String())
	default:
	}
	free()
	<-first
	if code := <-second; code != 0 {
		t.Fatalf("the second observe exit %d: %s", code, stderr.String())
	}
}

// waitUntil polls cond every 20 ms for up to 30 s, failing t with what it
// waited for.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
