package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// TestObserverReadsPages: the observer's plan read through the engine's
// Source a page at a time (observe.PageSource, 1000 turns a page) is the
// plan read at once, on a thread of three pages with tool-call groups,
// erased turns (seq gaps) and a pending turn, before and after a
// watermark.
func TestObserverReadsPages(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		srv := openaitest.New(t, openaitest.WithChat(observerModel))
		m := newObserverModel(t, srv)
		e := be.MustOpen(t, engine.Config{RecentN: 10, Observe: &engine.ObserveConfig{Model: m, Threshold: 400, ChunkTokens: 300, MaxRounds: 1}})
		var ms []engine.Message
		for i := range 560 {
			call := fmt.Sprintf("call_%d", i)
			ms = append(ms, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("question %d about the night train", i)},
				engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: call, Name: "lookup", Arguments: json.RawMessage(`{}`)}}},
				engine.Message{Role: engine.RoleTool, ToolCallID: call, Content: fmt.Sprintf("result %d: Porto at 21:40", i)})
			if i%5 != 4 {
				ms = append(ms, engine.Message{Role: engine.RoleAssistant, Content: fmt.Sprintf("answer %d", i)})
			}
		}
		var ids []string
		for i := 0; i < len(ms); i += 500 {
			res, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms[i:min(i+500, len(ms))]})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, res.IDs...)
		}
		var erased []string
		for _, i := range []int{30, 31, 32, 33, 150, 151, 999, 1000, 1001} {
			erased = append(erased, ids[i])
		}
		if _, err := e.DeleteMessages(ctx, erased...); err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			paged, whole, err := e.PlansPagedAndWhole(ctx, "t", m)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(paged, whole) || paged.PendingTurns < 2000 || paged.Watermark == 0 && round > 0 {
				t.Fatalf("round %d: the plan read in pages\n%+v\nread at once\n%+v", round, paged, whole)
			}
			if _, err := e.Observe(ctx, "t", observe.Options{NoReflect: true}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
