package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// lyonObserver answers observer requests (the last user message starts
// with "<conversation") with an item for each turn mentioning Lyon, and
// an empty list for a chunk without one.
func lyonObserver(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	data := req.Messages[len(req.Messages)-1].Content
	if !strings.HasPrefix(data, "<conversation") {
		return openaitest.Text(`{"reflection":[]}`).Response, nil
	}
	items := []map[string]any{}
	for _, l := range strings.Split(data, "\n") {
		var t struct {
			Seq     int64  `json:"seq"`
			Content string `json:"content"`
		}
		if json.Unmarshal([]byte(l), &t) == nil && strings.Contains(t.Content, "Lyon") {
			items = append(items, map[string]any{"text": "The user said: " + t.Content, "seqs": []int64{t.Seq}})
		}
	}
	b, _ := json.Marshal(map[string]any{"observations": items})
	return openaitest.Text(string(b)).Response, nil
}

// TestObserveNothingWorthKeeping is walk37's scenario obsstuck: six
// exchanges of small talk, "I live in Lyon and work as a baker.", four
// more, with SyncOnLoad and a 20-token chunk. Each chunk is sent to the
// model once (over the first two LoadContexts: 16 rounds each at most),
// the Lyon turn is observed and rendered, and the small-talk
// chunks leave the window without an observation in the prompt. Before,
// the observer's empty list was an error that kept the watermark at 0:
// 5 LoadContexts made 5 calls over the first chunk and stored nothing.
func TestObserveNothingWorthKeeping(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(lyonObserver))
		e := be.MustOpen(t, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{
			Model: newObserverModel(t, srv), SyncOnLoad: true, Threshold: 20, ChunkTokens: 20}})
		var turns []engine.Message
		exchange := func(i int, say string) {
			turns = append(turns, user(fmt.Sprintf("u%d", i), say),
				engine.Message{ID: fmt.Sprintf("a%d", i), Role: engine.RoleAssistant, Content: "Sure, tell me more."})
		}
		for i := range 6 {
			exchange(i, fmt.Sprintf("Small talk number %d about nothing much.", i))
		}
		exchange(6, "I live in Lyon and work as a baker.")
		for i := 7; i < 11; i++ {
			exchange(i, fmt.Sprintf("Small talk number %d about nothing much.", i))
		}
		appendTo(t, e, "s", "r", turns...)

		var c *engine.Context
		var calls []int
		for range 5 {
			var err error
			if c, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: "s"}); err != nil {
				t.Fatal(err)
			}
			calls = append(calls, srv.Count(openaitest.PathChat))
		}
		// The first LoadContext observes MaxRounds (16) chunks, the second
		// the rest; after that nothing is pending and no call is made.
		if calls[4] != calls[1] {
			t.Errorf("model calls after each LoadContext %v: the later ones called again", calls)
		}
		all, err := e.Observations(ctx, observe.Filter{ThreadID: "s", All: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != calls[4] {
			t.Errorf("%d rows for %d calls: one per chunk wanted", len(all), calls[4])
		}
		live, err := e.Observations(ctx, observe.Filter{ThreadID: "s"})
		if err != nil {
			t.Fatal(err)
		}
		if len(live) != 1 || !strings.Contains(live[0].Content, "Lyon") || live[0].FromSeq > 13 || live[0].ToSeq < 13 {
			t.Fatalf("live observations %+v, want one covering seq 13 (Lyon)", live)
		}
		if c.MemCtx.ObservationCount != 1 || c.MemCtx.RecentCount > 4 {
			t.Fatalf("memctx: %d observations, %d recent; want 1 and the recent window", c.MemCtx.ObservationCount, c.MemCtx.RecentCount)
		}
	})
}
