package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
)

// downModel is an observer model whose endpoint answers 503 to every call.
func downModel(t *testing.T) observe.Model {
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "down"}
	}))
	return newObserverModel(t, srv)
}

// logCount counts the records of one message a logger receives.
type logCount struct {
	mu   sync.Mutex
	msgs []string
}

func (c *logCount) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.msgs = append(c.msgs, string(b))
		return len(b), nil
	}), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func (c *logCount) count(sub string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.msgs {
		if strings.Contains(m, sub) {
			n++
		}
	}
	return n
}

// heapNow returns the live heap after a full collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// appendToolGroup appends one group of four messages to thread: a
// question, an assistant tool call, its result and the answer.
func appendToolGroup(t *testing.T, e *engine.Engine, thread string, i int, one func(engine.Message)) {
	t.Helper()
	call := fmt.Sprintf("call_%d", i%3) // agents reuse call ids
	ms := []engine.Message{
		{Role: engine.RoleUser, Content: fmt.Sprintf("question %d about the weather in town %d", i, i)},
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: call, Name: "weather", Arguments: []byte(`{"town":1}`)}}},
		{Role: engine.RoleTool, ToolCallID: call, Content: fmt.Sprintf("sunny in town %d, twenty degrees", i)},
		{Role: engine.RoleAssistant, Content: fmt.Sprintf("it is sunny in town %d", i)},
	}
	for _, m := range ms {
		one(m)
	}
}

// checkPairs fails unless every tool result of c follows the call it
// answers and every call's results follow it.
func checkPairs(t *testing.T, c *engine.Context) {
	t.Helper()
	open := map[string]bool{}
	for i, m := range c.Messages {
		switch {
		case m.Role == engine.RoleTool && !open[m.ToolCallID]:
			t.Fatalf("message %d: tool result %s without its call (window starts %q)", i, m.ToolCallID, c.Messages[0].Content)
		case m.Role == engine.RoleTool:
			delete(open, m.ToolCallID)
		case len(open) > 0:
			t.Fatalf("message %d: calls %v without results", i, open)
		}
		for _, tc := range m.ToolCalls {
			open[tc.ID] = true
		}
	}
	if len(open) > 0 {
		t.Fatalf("calls %v without results at the end", open)
	}
}

// TestUnobservedWindowBounded: with the observer's model down, a thread's
// unobserved tail grows past ObserveConfig.MaxUnobservedTokens; the window
// then holds the newest turns up to the bound (never half a tool-call
// group, whichever turn the bound falls on), memctx lists the left-out
// turns as dropped with reason "unobserved" and counts them all, replay
// rebuilds the same prompt, and later loads warn no more.
func TestUnobservedWindowBounded(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		logs := &logCount{}
		const bound = 200
		e := be.MustOpen(t, engine.Config{RecentN: 2, Logger: logs.logger(),
			Observe: &engine.ObserveConfig{Model: downModel(t), Threshold: 100, MaxUnobservedTokens: bound}})
		n := 0
		for i := range 12 {
			appendToolGroup(t, e, "t", i, func(m engine.Message) {
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{m}}); err != nil {
					t.Fatal(err)
				}
				n++
				if n < 30 {
					return
				}
				// Past the bound: after every message the cut moves one turn.
				run := fmt.Sprintf("run-%d", n)
				c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "t"})
				if err != nil {
					t.Fatal(err)
				}
				checkUnobservedCut(t, e, c, n, bound)
			})
		}
		if got := logs.count("the observer is behind"); got != 1 {
			t.Fatalf("%d warnings, want 1 (one per thread per interval)", got)
		}
		if _, err := e.Observe(ctx, "t", observe.Options{}); !errors.Is(err, observe.ErrModel) {
			t.Fatalf("observe: %v, want the model's error", err)
		}
	})
}

// checkUnobservedCut checks one bounded load of a thread of n unobserved
// messages and its replay.
func checkUnobservedCut(t *testing.T, e *engine.Engine, c *engine.Context, n, bound int) {
	t.Helper()
	rec := c.MemCtx
	checkPairs(t, c)
	listed := 0
	for _, d := range rec.Dropped {
		if d.Reason == journal.ReasonUnobserved {
			listed++
		}
	}
	if rec.RecentCount >= n || listed == 0 {
		t.Fatalf("%d messages: recentCount %d, %d listed unobserved: the window was not cut", n, rec.RecentCount, listed)
	}
	if rec.RecentCount+rec.DroppedCount != n {
		t.Fatalf("%d messages: recentCount %d + droppedCount %d (dropped %+v)", n, rec.RecentCount, rec.DroppedCount, rec.Dropped)
	}
	if listed > journal.RecentCap || (rec.DroppedCount > journal.RecentCap && listed != journal.RecentCap) {
		t.Fatalf("%d listed of %d dropped", listed, rec.DroppedCount)
	}
	// The bound holds but for the call a window starting with its result
	// pulls in.
	if rec.Tokens.Recent > bound+60 {
		t.Fatalf("recent window of %d tokens, bound %d", rec.Tokens.Recent, bound)
	}
	r, err := e.Replay(context.Background(), rec.RunID, engine.ReplayOptions{})
	if err != nil {
		t.Fatalf("replay %s: %v", rec.RunID, err)
	}
	if r.Original.PromptHash != rec.PromptHash {
		t.Fatalf("replay hash %s, recorded %s", r.Original.PromptHash, rec.PromptHash)
	}
}

// TestUnobservedLeftOutRecalled: a turn the bound left out of the window is
// no longer excluded from recall as "in the window": recall brings it back
// (reason hit), and memctx then lists it as recalled, not as dropped.
func TestUnobservedLeftOutRecalled(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{RecentN: 2, Embedder: recall.HashEmbedder{}, Recall: &recall.Options{TopK: 3},
			Observe: &engine.ObserveConfig{Model: downModel(t), MaxUnobservedTokens: 150}})
		ms := []engine.Message{{Role: engine.RoleUser, Content: "the zeppelin hangar code is 4417"}, {Role: engine.RoleAssistant, Content: "noted"}}
		for i := range 40 {
			ms = append(ms, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("filler question %d", i)},
				engine.Message{Role: engine.RoleAssistant, Content: fmt.Sprintf("filler answer %d", i)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "q", ThreadID: "t", Query: "zeppelin hangar code"})
		if err != nil {
			t.Fatal(err)
		}
		rec := c.MemCtx
		if rec.RecentCount >= len(ms) || rec.DroppedCount == 0 {
			t.Fatalf("window not cut: recent %d dropped %d", rec.RecentCount, rec.DroppedCount)
		}
		found := false
		for _, r := range rec.Recalled {
			found = found || r.Seq == 1
		}
		for _, d := range rec.Dropped {
			if d.Seq == 1 {
				t.Fatalf("seq 1 listed as dropped (%s) and recalled", d.Reason)
			}
		}
		if !found {
			t.Fatalf("the left-out turn was not recalled: %+v", rec.Recalled)
		}
		if rec.RecentCount+len(rec.Recalled)+rec.DroppedCount != len(ms) {
			t.Fatalf("recent %d + recalled %d + dropped %d != %d", rec.RecentCount, len(rec.Recalled), rec.DroppedCount, len(ms))
		}
		if r, err := e.Replay(ctx, "q", engine.ReplayOptions{}); err != nil || r.Original.PromptHash != rec.PromptHash {
			t.Fatalf("replay: %v", err)
		}
	})
}

// TestUnobservedNoBound: NoUnobservedBound keeps every unobserved message
// in the window, as before the bound.
func TestUnobservedNoBound(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Dir: t.TempDir(), RecentN: 2,
		Observe: &engine.ObserveConfig{Model: downModel(t), MaxUnobservedTokens: engine.NoUnobservedBound}})
	appendTurns(t, e, "t", 300)
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if c.MemCtx.RecentCount != 300 || c.MemCtx.DroppedCount != 0 {
		t.Fatalf("recent %d, dropped %d, want 300 and 0", c.MemCtx.RecentCount, c.MemCtx.DroppedCount)
	}
}

// TestUnobservedBoundConfig: a negative bound is refused by Open with a
// *ValidationError naming the field.
func TestUnobservedBoundConfig(t *testing.T) {
	_, err := engine.Open(context.Background(), engine.Config{Dir: t.TempDir(),
		Observe: &engine.ObserveConfig{MaxUnobservedTokens: -1}})
	var ve *engine.ValidationError
	if !errors.As(err, &ve) || ve.Field != "Observe.MaxUnobservedTokens" || !errors.Is(err, engine.ErrInvalidInput) {
		t.Fatalf("err = %v, want a *ValidationError naming Observe.MaxUnobservedTokens", err)
	}
}

// TestUnobservedWindowHeapBounded: LoadContext on a thread with 32 MB of
// unobserved content (nothing ever observed, the default bound) keeps the
// live heap far below it, during the load (sampled at its warning) and
// while its context is held. It read the whole tail into the window before.
func TestUnobservedWindowHeapBounded(t *testing.T) {
	ctx := context.Background()
	const n, size = 1000, 32 << 10
	var peak uint64
	h := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		peak = max(peak, heapNow())
		return len(b), nil
	}), &slog.HandlerOptions{Level: slog.LevelWarn}))
	e := enginetest.MustOpen(t, engine.Config{Dir: t.TempDir(), Logger: h, Observe: &engine.ObserveConfig{Model: downModel(t)}})
	body := strings.Repeat("porto ", size/6)
	for i := 0; i < n; i += 50 {
		var ms []engine.Message
		for j := range 50 {
			role := engine.RoleUser
			if j%2 == 1 {
				role = engine.RoleAssistant
			}
			ms = append(ms, engine.Message{Role: role, Content: fmt.Sprintf("%d %s", i+j, body)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "big", ResourceID: "r", Messages: ms}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil { // no indexing beside the load
		t.Fatal(err)
	}
	before := heapNow()
	c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "big"})
	if err != nil {
		t.Fatal(err)
	}
	// The least of three samples: the live heap is the process's, and
	// other goroutines (an earlier test's connections closing in the
	// background) may hold a few MB at any one sample (CI once: 8.2 MB
	// held where runs alone read 0.2-1.6 MB).
	held := heapNow()
	for range 2 {
		time.Sleep(50 * time.Millisecond)
		held = min(held, heapNow())
	}
	runtime.KeepAlive(c)
	if peak == 0 {
		t.Fatal("no warning logged for the cut")
	}
	// A third of the content: reading the whole tail (the bug) grows it by
	// more than the content; the window of ~14 messages by under 2 MB.
	grew, most := int64(max(peak, held))-int64(before), int64(n*size/3)
	t.Logf("recent %d, dropped %d; the live heap grew by %d bytes (held %d) over %d bytes of content", c.MemCtx.RecentCount, c.MemCtx.DroppedCount, grew, int64(held)-int64(before), n*size)
	if grew > most {
		t.Errorf("the live heap grew by %d bytes over %d bytes of unobserved content, want at most %d", grew, n*size, most)
	}
	if c.MemCtx.RecentCount+c.MemCtx.DroppedCount != n || c.MemCtx.Tokens.Recent > 4*observe.DefaultThreshold {
		t.Fatalf("recent %d (%d tokens), dropped %d", c.MemCtx.RecentCount, c.MemCtx.Tokens.Recent, c.MemCtx.DroppedCount)
	}
}

// TestUnobservedPendingTurnKept: a pending turn larger than the bound (a
// question and a tool loop still working on it) stays whole in the window
// while the older unobserved turns are left out; once the model is back,
// the observer distils the left-out turns from the first one on.
func TestUnobservedPendingTurnKept(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "down"}
		}))
		e := be.MustOpen(t, engine.Config{RecentN: 2,
			Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 40, MaxUnobservedTokens: 60}})
		appendTurns(t, e, "t", 20)
		ms := []engine.Message{{Role: engine.RoleUser, Content: "the pending question about the weather"}}
		for i := range 4 {
			call := fmt.Sprintf("call_%d", i)
			ms = append(ms, engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: call, Name: "weather", Arguments: []byte(`{"town":1}`)}}},
				engine.Message{Role: engine.RoleTool, ToolCallID: call, Content: "a long result about the weather in town"})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "p", ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		checkPairs(t, c)
		rec := c.MemCtx
		if c.Messages[0].Content != ms[0].Content || rec.RecentCount != len(ms) || rec.DroppedCount != 20 || rec.Tokens.Recent <= 60 {
			t.Fatalf("window starts %q, recent %d (%d tokens), dropped %d; want the whole pending turn (%d) and 20 dropped",
				c.Messages[0].Content, rec.RecentCount, rec.Tokens.Recent, rec.DroppedCount, len(ms))
		}
		if r, err := e.Replay(ctx, "p", engine.ReplayOptions{}); err != nil || r.Original.PromptHash != rec.PromptHash {
			t.Fatalf("replay: %v", err)
		}
		srv.SetChat(observerModel)
		res, err := e.Observe(ctx, "t", observe.Options{NoReflect: true})
		if err != nil || len(res.Observations) == 0 || res.Observations[0].FromSeq != 1 {
			t.Fatalf("observe after recovery: %v, %+v", err, res)
		}
	})
}
