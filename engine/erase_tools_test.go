package engine_test

import (
	"context"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestDeleteResourceDeletesToolsOnOthersThreads: erasing a resource
// deletes the tool applications of its runs on a thread id another
// resource holds (bob's runs on t7, recorded before alice created the
// thread), which no thread's deletion reaches. Before: journal.ForgetRunTools
// looked for keys beginning "<run>:", where the tools key an application
// ["<run>","<thread>","<resource>","<call>"], so both of bob's applications
// stayed, his resource id in their keys.
func TestDeleteResourceDeletesToolsOnOthersThreads(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		const thread, alice, bob = "t7-thread-5120", "res-alice-5120", "res-bob-5120"
		reg, err := e.Tools(ctx, thread, bob)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range []string{"bob-run-1", "bob-run-10"} {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: thread, ResourceID: bob, Query: "the heron schedule"}); err != nil {
				t.Fatal(err)
			}
			call := openai.ToolCall{ID: "call-1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "lookup", Arguments: `{"q":"heron"}`}}
			if _, err := reg.Handle(ctx, run, call); err != nil {
				t.Fatal(err)
			}
		}
		appendUser(t, e, thread, alice, "alice's first turn")
		if got := toolRows(t, e); got != 2 {
			t.Fatalf("tool applications before the erasure = %d, want 2 (bob's)", got)
		}
		if _, err := e.DeleteResource(ctx, bob); err != nil {
			t.Fatal(err)
		}
		if got := toolRows(t, e); got != 0 {
			t.Errorf("tool applications after DeleteResource(bob) = %d, want 0", got)
		}
		if hits := storedCopies(t, be, e, bob); len(hits) > 0 {
			t.Errorf("the erased resource's id is still in %v", hits)
		}
	})
}

// toolRows counts e's tool applications (journal scope "tool").
func toolRows(t *testing.T, e *engine.Engine) int {
	t.Helper()
	var n int
	if err := engine.DBOf(e).QueryRowContext(context.Background(), `SELECT COUNT(*) FROM journal WHERE scope = 'tool'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
