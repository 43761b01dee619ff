package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// observerModel answers observer requests with one item per turn and
// reflector requests with one item per observation, like a careful model.
func observerModel(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	data := req.Messages[len(req.Messages)-1].Content
	lines := strings.Split(data, "\n")
	var out map[string]any
	if strings.HasPrefix(data, "<conversation") {
		var items []map[string]any
		for _, l := range lines[1 : len(lines)-1] {
			var t struct {
				Seq     int64  `json:"seq"`
				Role    string `json:"role"`
				Name    string `json:"name"`
				Content string `json:"content"`
			}
			if err := json.Unmarshal([]byte(l), &t); err != nil {
				return openai.ChatCompletionResponse{}, err
			}
			who := t.Role
			if t.Name != "" {
				who = t.Name
			}
			items = append(items, map[string]any{"text": who + " said: " + t.Content, "seqs": []int64{t.Seq}})
		}
		out = map[string]any{"observations": items}
	} else {
		var items []map[string]any
		for _, l := range lines[1 : len(lines)-1] {
			var o struct{ ID, Text string }
			if err := json.Unmarshal([]byte(l), &o); err != nil {
				return openai.ChatCompletionResponse{}, err
			}
			items = append(items, map[string]any{"text": "condensed " + o.ID, "sources": []string{o.ID}})
		}
		out = map[string]any{"reflection": items}
	}
	b, _ := json.Marshal(out)
	return openaitest.Text(string(b)).Response, nil
}

func newObserverModel(t testing.TB, srv *openaitest.Server) observe.Model {
	t.Helper()
	m, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: srv.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func appendTurns(t *testing.T, e *engine.Engine, thread string, n int) {
	t.Helper()
	var ms []engine.Message
	for i := 0; i < n; i++ {
		role := engine.RoleUser
		if i%2 == 1 {
			role = engine.RoleAssistant
		}
		ms = append(ms, engine.Message{Role: role, Content: fmt.Sprintf("%s turn %d of %s with some words", role, i, thread)})
	}
	if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: ms}); err != nil {
		t.Fatal(err)
	}
}

func TestObserveOffByDefault(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		appendTurns(t, e, "t", 30)
		if _, err := e.Observe(ctx, "t", observe.Options{Force: true}); !errors.Is(err, observe.ErrConfig) {
			t.Fatalf("err = %v, want observe.ErrConfig", err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if c.MemCtx.ObservationCount != 0 || len(c.MemCtx.Observations) != 0 {
			t.Fatalf("memctx observations %d", c.MemCtx.ObservationCount)
		}
	})
}

func TestObserveLoadContext(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(observerModel))
		st := be.NewStore(t)
		cfg := st.Config(engine.Config{RecentN: 4, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 50, ChunkTokens: 60}})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		appendTurns(t, e, "t", 24)
		before, err := e.Messages(ctx, "t", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Observe(ctx, "t", observe.Options{NoReflect: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Observations) == 0 {
			t.Fatal("no observation stored")
		}
		calls := srv.Count("/v1/chat/completions")
		if calls != len(res.Observations) {
			t.Fatalf("%d model calls for %d observations", calls, len(res.Observations))
		}
		last := res.Observations[len(res.Observations)-1]
		if last.ToSeq > 20 {
			t.Fatalf("observed into the recent window: toSeq %d", last.ToSeq)
		}
		// The observer wrote no message: its prompt is never stored as user content.
		after, _ := e.Messages(ctx, "t", 1, 0)
		if len(after) != len(before) {
			t.Fatalf("messages %d -> %d", len(before), len(after))
		}

		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.MemCtx.ObservationCount, len(res.Observations); got != want {
			t.Fatalf("observationCount=%d, want %d", got, want)
		}
		for i, ref := range c.MemCtx.Observations {
			o := res.Observations[i]
			if ref.ID != o.ID || ref.ThreadID != "t" || ref.FromSeq != o.FromSeq || ref.ToSeq != o.ToSeq {
				t.Fatalf("memctx observation %d = %+v, want %s %d..%d", i, ref, o.ID, o.FromSeq, o.ToSeq)
			}
			if want := fmt.Sprintf(`<observation id="%s" thread="t" seq="%d-%d"`, o.ID, o.FromSeq, o.ToSeq); !strings.Contains(c.System, want) {
				t.Fatalf("system part lacks provenance %q:\n%s", want, c.System)
			}
		}
		if !strings.Contains(c.System, "user said: user turn 0 of t") {
			t.Fatalf("system part lacks observation content:\n%s", c.System)
		}
		if strings.Contains(c.System, "You are the observer") {
			t.Fatalf("observer prompt rendered into the system part")
		}
		// Observational memory alone offers the model no tool.
		for _, tool := range c.Tools {
			t.Fatalf("context offers tool %s with only observational memory on", tool.Function.Name)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		// Reopened: the observations are still rendered, nothing is pending and
		// the model is not called again.
		e = be.MustOpen(t, cfg)
		res, err = e.Observe(ctx, "t", observe.Options{NoReflect: true})
		if err != nil || len(res.Observations) != 0 {
			t.Fatalf("after reopen: %+v, %v", res, err)
		}
		c, err = e.LoadContext(ctx, engine.LoadRequest{RunID: "run-2", ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if c.MemCtx.ObservationCount == 0 {
			t.Fatal("after reopen: no observations in memctx")
		}
		if got := srv.Count("/v1/chat/completions"); got != calls {
			t.Fatalf("after reopen: %d model calls, want %d", got, calls)
		}
	})
}

func TestObserveModelDownKeepsHistory(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "down"}
		}))
		e := be.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 10, SyncOnLoad: true}})
		appendTurns(t, e, "t", 10)
		if _, err := e.Observe(ctx, "t", observe.Options{}); !errors.Is(err, observe.ErrModel) {
			t.Fatalf("err = %v, want observe.ErrModel", err)
		}
		// LoadContext with synchronous observation still answers.
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		// Nothing was observed, so the window keeps every unobserved turn (10),
		// not just RecentN (2): a dead model never hides history.
		if c.MemCtx.ObservationCount != 0 || c.MemCtx.RecentCount != 10 {
			t.Fatalf("memctx %+v", c.MemCtx)
		}
		// The model recovers: the next LoadContext observes synchronously.
		srv.SetChat(observerModel)
		c, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if c.MemCtx.ObservationCount == 0 {
			t.Fatal("synchronous observation did not run after recovery")
		}
		// Observed turns older than the window now come from the observations.
		if c.MemCtx.RecentCount >= 10 {
			t.Fatalf("recentCount %d after observation, want fewer than 10", c.MemCtx.RecentCount)
		}
	})
}

func TestObserveBackground(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(observerModel))
		e := be.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{Model: newObserverModel(t, srv), Threshold: 20, Background: true}})
		appendTurns(t, e, "t", 12)
		deadline := time.Now().Add(5 * time.Second)
		for {
			obs, err := e.Observations(ctx, observe.Filter{ThreadID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if len(obs) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("background observation did not run")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func TestObserveResourceScope(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(observerModel))
		var tick atomic.Int64 // a clock one second further at every reading
		now := func() time.Time { return time.Unix(1_700_000_000+tick.Add(1), 0) }
		e := be.MustOpen(t, engine.Config{RecentN: 2, Now: now, Observe: &engine.ObserveConfig{
			Model: newObserverModel(t, srv), Threshold: 1, Scope: engine.ObserveScopeResource}})
		// Conversation order: "z-first" before "a-second" (not id order).
		for _, th := range []string{"z-first", "a-second", "now"} {
			appendTurns(t, e, th, 6)
			if _, err := e.Observe(ctx, th, observe.Options{NoReflect: true}); err != nil {
				t.Fatal(err)
			}
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "now"})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, r := range c.MemCtx.Observations {
			if len(order) == 0 || order[len(order)-1] != r.ThreadID {
				order = append(order, r.ThreadID)
			}
		}
		if got, want := strings.Join(order, ","), "z-first,a-second,now"; got != want {
			t.Fatalf("observation threads %s, want %s", got, want)
		}
	})
}
