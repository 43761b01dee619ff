package inspector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestThreadPageShowsDispatches: the thread page marks a dispatched call
// in its Messages table with its state, pending (outcome unknown),
// settled or answered, naming the run, and lists the thread's dispatches
// in a Dispatches section with their state (walk60 L4: the call of a
// pending dispatch read as any other call, "assistant → charge_card(…)";
// only a later run's page showed its outcome was unknown). The states
// are the dispatch journal's words, as mnemo memctx says them (small64:
// "pending · outcome unknown", "answered by a tool message").
func TestThreadPageShowsDispatches(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{RecentN: 10})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "shop", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "refund the mug, then pay the invoice"},
	}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ run, call, tool string }{{"run-refund", "call_refund", "refund"}, {"run-pay", "call_pay", "charge_card"}, {"run-ship", "call_ship", "ship"}} {
		msg := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: c.call, Name: c.tool, Arguments: json.RawMessage(`{"amount":5}`)}}}
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: c.run, ThreadID: "shop", ResourceID: "ana", Message: msg}); err != nil {
			t.Fatal(err)
		}
		var err error
		switch c.call {
		case "call_refund":
			_, err = e.SettleDispatch(ctx, engine.Settlement{RunID: c.run, ResourceID: "ana", CallID: c.call, Result: "refunded"})
		case "call_ship":
			_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "shop", ResourceID: "ana", Messages: []engine.Message{
				{Role: engine.RoleTool, ToolCallID: c.call, Name: c.tool, Content: "shipped"}}})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	status, body := get(t, inspectorServer(t, e)+"/ui/threads/shop", "")
	body = unwrapped(body)
	_, msgs, _ := strings.Cut(body, "<h2>Messages")
	for _, want := range []string{
		`→ charge_card({&#34;amount&#34;:5}) <span class="dispatch pending">dispatched by run run-pay: pending (its outcome is unknown)</span>`,
		`→ refund({&#34;amount&#34;:5}) <span class="dispatch settled">dispatched by run run-refund: settled</span>`,
		`→ ship({&#34;amount&#34;:5}) <span class="dispatch settled">dispatched by run run-ship: answered by a tool message appended without a settlement</span>`,
	} {
		if status != http.StatusOK || !strings.Contains(msgs, want) {
			t.Errorf("thread page %d: the Messages table lacks %q:\n%s", status, want, msgs)
		}
	}
	_, ds, _ := strings.Cut(body, "<h2>Dispatches</h2>")
	ds, _, _ = strings.Cut(ds, "<h2>")
	for _, want := range []string{
		`<tr class="dispatch pending"><td>call_pay</td><td>charge_card</td><td><a href="#seq-4">seq 4</a></td><td>run-pay</td><td class="state">pending (its outcome is unknown)</td>`,
		`<tr class="dispatch settled"><td>call_refund</td><td>refund</td><td><a href="#seq-2">seq 2</a></td><td>run-refund</td><td class="state">settled</td>`,
		`<tr class="dispatch settled"><td>call_ship</td><td>ship</td><td><a href="#seq-5">seq 5</a></td><td>run-ship</td><td class="state">answered by a tool message appended without a settlement</td>`,
	} {
		if !strings.Contains(ds, want) {
			t.Errorf("the Dispatches section lacks %q:\n%s", want, ds)
		}
	}
}

// TestThreadPageMarksEveryDispatch: in a thread of more than 100
// dispatches, every dispatched call of the page's messages is marked,
// those past the Dispatches section's first 100 (by run id) included
// (small64: the marks came from that list, so the calls of runs
// run-100…run-104, the newest, read as any other call).
func TestThreadPageMarksEveryDispatch(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{RecentN: 10})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "shop", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "pay every invoice"},
	}}); err != nil {
		t.Fatal(err)
	}
	const n = 105
	for i := range n {
		msg := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
			{ID: fmt.Sprintf("call_%03d", i), Name: "charge_card", Arguments: json.RawMessage(`{}`)}}}
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: fmt.Sprintf("run-%03d", i), ThreadID: "shop", ResourceID: "ana", Message: msg}); err != nil {
			t.Fatal(err)
		}
	}
	status, body := get(t, inspectorServer(t, e)+"/ui/threads/shop", "")
	body = unwrapped(body)
	_, msgs, _ := strings.Cut(body, "<h2>Messages")
	// The page holds the newest 100 messages: the calls of run-005…run-104.
	if got, want := strings.Count(msgs, `<span class="dispatch pending">dispatched by run `), engine.DefaultPageLimit; status != http.StatusOK || got != want {
		t.Errorf("thread page %d: %d calls marked pending, want %d", status, got, want)
	}
	for _, run := range []string{"run-005", "run-099", "run-100", "run-104"} {
		if want := `dispatched by run ` + run + `: pending (its outcome is unknown)`; !strings.Contains(msgs, want) {
			t.Errorf("the Messages table lacks %q", want)
		}
	}
	if !strings.Contains(body, "The first 100 dispatches, by run id.") {
		t.Errorf("the Dispatches section does not say it lists the first 100")
	}
}

// inspectorServer serves e's API and inspector on loopback, without
// tokens, and returns its URL.
func inspectorServer(t *testing.T, e *engine.Engine) string {
	t.Helper()
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}
