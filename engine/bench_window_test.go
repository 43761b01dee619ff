package engine_test

import (
	"context"
	"fmt"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/openaitest"
)

// BenchmarkLoadContextUnobserved: LoadContext (SQLite, RecentN 10) on a
// thread whose turns were never observed (the observer's model is down):
// 2,000 turns of about 12 tokens, within the default bound on the
// unobserved window, and 20,000 (about 240,000 tokens), over it.
//
//	go test ./engine/ -run '^$' -bench LoadContextUnobserved -benchmem
func BenchmarkLoadContextUnobserved(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			ctx := context.Background()
			srv := openaitest.New(b, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
				return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 503, Message: "down"}
			}))
			e, err := engine.Open(ctx, engine.Config{Dir: b.TempDir(), RecentN: 10, Observe: &engine.ObserveConfig{Model: newObserverModel(b, srv)}})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			for i := 0; i < n; i += 1000 {
				var ms []engine.Message
				for j := range 1000 {
					role := engine.RoleUser
					if j%2 == 1 {
						role = engine.RoleAssistant
					}
					ms = append(ms, engine.Message{Role: role, Content: fmt.Sprintf("%s turn %d with some words", role, i+j)})
				}
				if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
					b.Fatal(err)
				}
			}
			if err := e.SyncIndexes(ctx); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", ReplaceRun: true, RunID: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					b.ReportMetric(float64(c.MemCtx.RecentCount), "window")
				}
			}
		})
	}
}
