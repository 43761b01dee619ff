package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// waitLogged waits up to 10 s for buf to hold every one of want.
func waitLogged(t *testing.T, buf *enginetest.SyncBuffer, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		missing := ""
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log has no %s:\n%s", missing, buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeLogsEviction: under mnemo serve an eviction by the store's
// quota is a warning in the log (thread, resource, count, no message
// text), is counted in /metrics, and the append answer names the evicted
// thread. Before, serve set no engine.Config.Events: the eviction left no
// trace anywhere (walk28).
func TestServeLogsEviction(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	config := filepath.Join(t.TempDir(), "mnemo.json")
	if err := os.WriteFile(config, []byte(`{"lifecycle":{"quota":{"storeMessages":1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base, stderr, stop := startServe(t, dir, "--config", config)
	defer stop()
	say := func(thread string) []byte {
		t.Helper()
		code, body := post(t, base+"/v1/threads/"+thread+"/messages", "", map[string]any{"resourceId": "r1",
			"messages": []map[string]any{{"role": "user", "content": "the spare key is under the blue flowerpot"}}})
		if code != 200 {
			t.Fatalf("append to %s: %d %s", thread, code, body)
		}
		return body
	}
	say("old-thread")
	time.Sleep(5 * time.Millisecond) // a later last activity: old-thread is evicted, not new-thread
	if body := say("new-thread"); !strings.Contains(string(body), `"evicted":["old-thread"]`) {
		t.Fatalf("append answer %s names no evicted old-thread", body)
	}
	waitLogged(t, stderr, `"level":"WARN","msg":"thread evicted: the store is over its quota`, `"reason":"evicted-store-quota","resource":"r1","thread":"old-thread"`)
	if strings.Contains(stderr.String(), "flowerpot") {
		t.Fatalf("the log holds message text:\n%s", stderr.String())
	}
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(b), `mnemo_engine_events_total{reason="evicted-store-quota"} 1`) {
		t.Fatalf("/metrics counts no eviction:\n%s", b)
	}
}

// TestMCPLogsEviction: mnemo mcp logs a quota's eviction on standard error
// (its log, warnings only), and memory_append's answer names the thread.
func TestMCPLogsEviction(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"quota":{"storeMessages":1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &enginetest.SyncBuffer{}
	m := &Main{Stdin: inR, Stdout: outW, Stderr: stderr, Getenv: func(k string) string {
		if k == "MNEMO_EMBEDDER" {
			return "hash-384"
		}
		return ""
	}}
	code := make(chan int, 1)
	go func() { code <- m.Run(ctx, []string{"--dir", dir, "mcp"}); outW.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, thread := range []string{"old-thread", "new-thread"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_append", Arguments: map[string]any{"threadId": thread, "resourceId": "u1",
			"messages": []map[string]any{{"role": "user", "content": "the spare key is under the blue flowerpot"}}}})
		if err != nil || res.IsError {
			t.Fatalf("append: %v %+v", err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		last = string(b)
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(last, `"evicted":["old-thread"]`) {
		t.Fatalf("memory_append's answer %s names no evicted old-thread", last)
	}
	waitLogged(t, stderr, `msg="thread evicted: the store is over its quota`, "reason=evicted-store-quota resource=u1 thread=old-thread")
	cs.Close()
	inW.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("mnemo mcp exit %d: %s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mnemo mcp did not exit when its input closed")
	}
}

// countAtLog is a slog handler that notes, as each record is written,
// how many events fn had counted by then.
type countAtLog struct {
	counted *atomic.Int64
	seen    *[]int64
}

func (h countAtLog) Enabled(context.Context, slog.Level) bool { return true }
func (h countAtLog) Handle(context.Context, slog.Record) error {
	*h.seen = append(*h.seen, h.counted.Load())
	return nil
}
func (h countAtLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countAtLog) WithGroup(string) slog.Handler      { return h }

// TestEventCountedBeforeLogged: an engine event is counted (mnemo serve's
// /metrics) before its log line is written, so a client that saw the line
// finds the count. It was counted after: TestServeLogsEviction read
// /metrics right after the line and found no count (CI, 2026-12-07).
func TestEventCountedBeforeLogged(t *testing.T) {
	var counted atomic.Int64
	var seen []int64
	l := startEventLog(slog.New(countAtLog{&counted, &seen}))
	l.alsoTo(func(engine.Event) { counted.Add(1) })
	for i := 0; i < 3; i++ {
		l.ch <- engine.Event{Reason: engine.EventEvictedStoreQuota, ThreadID: "t", Count: 1}
	}
	l.Stop()
	if want := []int64{1, 2, 3}; !slices.Equal(seen, want) {
		t.Fatalf("events counted as each line was logged: %v, want %v", seen, want)
	}
}
