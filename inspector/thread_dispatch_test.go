package inspector_test

import (
	"context"
	"encoding/json"
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
// in its Messages table with its state, pending (outcome unknown) or
// settled, naming the run, and lists the thread's dispatches in a
// Dispatches section with their state (walk60 L4: the call of a pending
// dispatch read as any other call, "assistant → charge_card(…)"; only a
// later run's page showed its outcome was unknown).
func TestThreadPageShowsDispatches(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{RecentN: 10})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "shop", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "refund the mug, then pay the invoice"},
	}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ run, call, tool string }{{"run-refund", "call_refund", "refund"}, {"run-pay", "call_pay", "charge_card"}} {
		msg := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: c.call, Name: c.tool, Arguments: json.RawMessage(`{"amount":5}`)}}}
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: c.run, ThreadID: "shop", ResourceID: "ana", Message: msg}); err != nil {
			t.Fatal(err)
		}
		if c.call == "call_refund" {
			if _, err := e.SettleDispatch(ctx, engine.Settlement{RunID: c.run, ResourceID: "ana", CallID: c.call, Result: "refunded"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	status, body := get(t, ts.URL+"/ui/threads/shop", "")
	body = unwrapped(body)
	_, msgs, _ := strings.Cut(body, "<h2>Messages")
	for _, want := range []string{
		`→ charge_card({&#34;amount&#34;:5}) <span class="dispatch pending">dispatched by run run-pay: pending · outcome unknown</span>`,
		`→ refund({&#34;amount&#34;:5}) <span class="dispatch settled">dispatched by run run-refund: settled</span>`,
	} {
		if status != http.StatusOK || !strings.Contains(msgs, want) {
			t.Errorf("thread page %d: the Messages table lacks %q:\n%s", status, want, msgs)
		}
	}
	_, ds, _ := strings.Cut(body, "<h2>Dispatches</h2>")
	ds, _, _ = strings.Cut(ds, "<h2>")
	for _, want := range []string{
		`<tr class="dispatch pending"><td>call_pay</td><td>charge_card</td><td><a href="#seq-4">seq 4</a></td><td>run-pay</td><td class="state">pending · outcome unknown</td>`,
		`<tr class="dispatch settled"><td>call_refund</td><td>refund</td><td><a href="#seq-2">seq 2</a></td><td>run-refund</td><td class="state">settled</td>`,
	} {
		if !strings.Contains(ds, want) {
			t.Errorf("the Dispatches section lacks %q:\n%s", want, ds)
		}
	}
}
