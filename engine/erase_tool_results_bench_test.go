package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
)

// BenchmarkEraseRecalledResults times DeleteMessages of a turn whose
// observation a recallObservations call returned (its recorded result is
// forgotten: journal.ForgetToolResults, which reads every tool result of
// the resource inside the erasure's transaction), in a resource holding
// results more tool results recorded before (copies of one that holds no
// invalidated id, inserted in bulk). Each erasure's setup (not timed)
// appends a thread of five turns, observes it and recalls from it.
//
//	go test ./engine/ -run '^$' -bench EraseRecalledResults -benchtime 10x
func BenchmarkEraseRecalledResults(b *testing.B) {
	for _, be := range enginetest.Backends {
		for _, results := range []int{0, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/results-%d", be.Name, results), func(b *testing.B) {
				ctx := context.Background()
				srv := openaitest.New(b, openaitest.WithChat(observerModel))
				e := be.MustOpen(b, engine.Config{RecentN: 2, Observe: &engine.ObserveConfig{
					Model: newObserverModel(b, srv), Threshold: 10, Scope: engine.ObserveScopeThread, SearchTool: true}})
				recalledTurn(b, e, "bulk")
				bulkToolResults(b, be, e, results)
				for i := 0; b.Loop(); i++ {
					b.StopTimer()
					msg := recalledTurn(b, e, fmt.Sprint(i))
					b.StartTimer()
					if _, err := e.DeleteMessages(ctx, msg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// recalledTurn stores thread "t-"+n of resource r with five turns,
// observes it, and handles a recallObservations call of run "run-"+n that
// returns the observation of its second turn, whose id it returns.
func recalledTurn(b *testing.B, e *engine.Engine, n string) string {
	ctx := context.Background()
	thread, run, secret := "t-"+n, "run-"+n, "o2-"+n
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: thread, ResourceID: "r", Messages: []engine.Message{
		user("o1-"+n, "first turn about gardens"), user(secret, "my secret is "+secretToken), user("o3-"+n, "third turn"),
		user("o4-"+n, "fourth turn"), user("o5-"+n, "fifth turn"),
	}}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.Observe(ctx, thread, observe.Options{Force: true, NoReflect: true}); err != nil {
		b.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: thread, ResourceID: "r", RunID: run}); err != nil {
		b.Fatal(err)
	}
	call := openai.ToolCall{ID: "call_0", Type: openai.ToolTypeFunction,
		Function: openai.FunctionCall{Name: tools.RecallObservationsName, Arguments: `{"query":"secret"}`}}
	if msg, err := e.HandleToolCall(ctx, run, thread, "r", call); err != nil || !strings.Contains(msg.Content, secretToken) {
		b.Fatalf("recallObservations: %q, %v; want the observation of %s", msg.Content, err, secret)
	}
	return secret
}

// bulkToolResults inserts n copies of run-bulk's recorded tool result
// under new keys of resource r.
func bulkToolResults(b *testing.B, be enginetest.Backend, e *engine.Engine, n int) {
	if n == 0 {
		return
	}
	seq := `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)`
	if be.Name == "postgres" {
		seq = `WITH n(i) AS (SELECT generate_series(0, $1::bigint - 1))`
	}
	res, err := engine.DBOf(e).ExecContext(context.Background(), seq+` INSERT INTO journal (scope, key, thread_id, resource_id, output, input_hash, created_at)
		SELECT j.scope, 'bulk-' || n.i || '-' || j.key, j.thread_id, j.resource_id, j.output, j.input_hash, j.created_at
		FROM n CROSS JOIN journal j WHERE j.scope = 'tool' AND j.resource_id = 'r' AND j.thread_id = 't-bulk'`, n)
	if err != nil {
		b.Fatal(err)
	}
	if got, _ := res.RowsAffected(); got != int64(n) {
		b.Fatalf("inserted %d tool results, want %d", got, n)
	}
}
