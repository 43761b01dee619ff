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

// TestRunTimelineShowsUnsettled: a run whose prompt gave a dispatched
// call the synthetic "outcome unknown" result (the process died between
// BeginDispatch and SettleDispatch) shows that result in "The prompt, top
// to bottom", right after the call's message, naming the call. The
// timeline showed the call alone, as if the model had seen no result.
func TestRunTimelineShowsUnsettled(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{RecentN: 10})
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "shop", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "pay the invoice"},
	}}); err != nil {
		t.Fatal(err)
	}
	call := engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "call_pay", Name: "charge_card", Arguments: json.RawMessage(`{"amount":5}`)}}}
	if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-pay", ThreadID: "shop", ResourceID: "ana", Message: call}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-next", ThreadID: "shop", ResourceID: "ana"}); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	status, body := get(t, ts.URL+"/ui/runs/run-next", "")
	_, tl, _ := strings.Cut(unwrapped(body), `id="timeline"`)
	tl, _, _ = strings.Cut(tl, "<h2>Left out")
	callAt := strings.Index(tl, "→ charge_card")
	unsettledAt := strings.Index(tl, `class="item unsettled"`)
	if status != http.StatusOK || callAt < 0 || unsettledAt < callAt {
		t.Fatalf("run page %d: the timeline lacks the unsettled call's synthetic result after its call:\n%s", status, tl)
	}
	for _, want := range []string{"outcome unknown", "call_pay", "Outcome unknown: this action was started"} {
		if !strings.Contains(tl[unsettledAt:], want) {
			t.Errorf("the timeline's unsettled item lacks %q:\n%s", want, tl[unsettledAt:])
		}
	}
}
