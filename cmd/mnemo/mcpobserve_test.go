package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestMCPObservesOnLoad: `mnemo mcp` is a service as `mnemo serve` is, so
// the stored configuration's observer (mnemo.json's observe section, with
// syncOnLoad) runs when memory_context loads a thread, and the observation
// reaches the context. Before, mcp opened the engine render-only (no
// model): the observer was never called.
func TestMCPObservesOnLoad(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "<conversation") {
			return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Ana keeps the spare key under the blue flowerpot","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
		}
		return openaitest.Text(`{"reflection":[]}`).Response, nil
	}))
	dir := t.TempDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := `{"recentN": 2, "observe": {"endpoint": "` + srv.URL + `", "model": "fake-observer", "syncOnLoad": true, "threshold": 1}}`
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := map[string]string{"MNEMO_EMBEDDER": "hash-384", "OPENAI_API_KEY": openaitest.DefaultAPIKey}
	m := &Main{Stdin: inR, Stdout: outW, Stderr: io.Discard, Getenv: func(k string) string { return env[k] }}
	code := make(chan int, 1)
	go func() { code <- m.Run(ctx, []string{"--dir", dir, "mcp"}); outW.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	for i, c := range []string{"the spare key is under the blue flowerpot", "noted", "and the bike is in the shed", "noted too", "thanks", "you're welcome"} {
		msgs = append(msgs, map[string]any{"role": []string{"user", "assistant"}[i%2], "content": c})
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_append", Arguments: map[string]any{"threadId": "t1", "resourceId": "ana", "messages": msgs}})
	if err != nil || res.IsError {
		t.Fatalf("append: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_context", Arguments: map[string]any{"threadId": "t1", "resourceId": "ana"}})
	if err != nil || res.IsError {
		t.Fatalf("context: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if n := len(srv.ChatRequests()); n == 0 || !strings.Contains(string(b), "Ana keeps the spare key") {
		t.Fatalf("memory_context with syncOnLoad: %d observer calls, context %s", n, b)
	}
	cs.Close()
	inW.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("mnemo mcp exit %d", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mnemo mcp did not exit when its input closed")
	}
}
