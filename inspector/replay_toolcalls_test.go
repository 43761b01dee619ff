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

// TestReplayShowsToolCalls: the run page's replay table gives each
// message of the prompt as the model gets it, an assistant's tool calls
// and a tool result's name included. It showed the content alone, so an
// assistant turn that only called a tool was an empty row (its call
// appeared only cut to 80 characters in the timeline's preview).
func TestReplayShowsToolCalls(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{RecentN: 10})
	args := json.RawMessage(`{"train":"Intercites night + Alfa Pendular 131","date":"2026-05-02","seat":"window, coach 12"}`)
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "trip", ResourceID: "ana", Messages: []engine.Message{
		{Role: engine.RoleUser, Content: "book the night train to Porto"},
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "book_train", Arguments: args}}},
		{Role: engine.RoleTool, ToolCallID: "c1", Name: "book_train", Content: `{"status":"confirmed"}`},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-tools", ThreadID: "trip"}); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	status, body := get(t, ts.URL+"/ui/runs/run-tools", "")
	_, table, _ := strings.Cut(unwrapped(body), "<h2>Messages")
	for _, want := range []string{
		`→ book_train({&#34;train&#34;:&#34;Intercites night &#43; Alfa Pendular 131&#34;,&#34;date&#34;:&#34;2026-05-02&#34;,&#34;seat&#34;:&#34;window, coach 12&#34;})`,
		`tool (book_train)`,
	} {
		if status != http.StatusOK || !strings.Contains(table, want) {
			t.Errorf("run page %d: the replay's messages lack %s:\n%s", status, want, table)
		}
	}
}
