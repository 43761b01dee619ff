package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
)

// BenchmarkObservePlan measures one Observe on a thread of 20,000
// unobserved turns that is not due (its threshold is out of reach): the
// observer's plan alone, which reads every turn after the watermark (a
// page at a time through the engine's Source), as every LoadContext with
// SyncOnLoad does.
func BenchmarkObservePlan(b *testing.B) {
	ctx := context.Background()
	srv := openaitest.New(b, openaitest.WithChat(observerModel))
	e := enginetest.MustOpen(b, engine.Config{Observe: &engine.ObserveConfig{Model: newObserverModel(b, srv), Threshold: 1 << 30}})
	const n = 20000
	for i := 0; i < n; i += 500 {
		var ms []engine.Message
		for j := i; j < i+500; j++ {
			role := engine.RoleUser
			if j%2 == 1 {
				role = engine.RoleAssistant
			}
			ms = append(ms, engine.Message{Role: role, Content: fmt.Sprintf("turn %d about trains, gardens and quarterly reports", j)})
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: ms}); err != nil {
			b.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil { // no indexing behind the loop
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Observe(ctx, "t", observe.Options{NoReflect: true})
		if err != nil || res.Pending.PendingTurns != n-engine.DefaultRecentN || res.Pending.Due {
			b.Fatalf("%v %+v", err, res)
		}
	}
}
