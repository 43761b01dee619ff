package inspector_test

import (
	"context"
	"encoding/json"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestWorkingMemoryModeChangePages: thread t1's state written in template
// mode, the directory reopened in schema mode, a run composed over it and
// the state then replaced in schema mode. The run page shows the run's
// workingMemoryNote beside the working memory's size, and the thread page
// each version's mode. Before, the note was in the memctx record only and
// the versions' listing mixed markdown and JSON with no mode.
func TestWorkingMemoryModeChangePages(t *testing.T) {
	ts := modeChangeServer(t)
	code, body := get(t, ts.URL+"/ui/runs/run-m", "")
	page := html.UnescapeString(unwrapped(body))
	i := strings.Index(page, `<div class="item working-memory">`)
	if code != 200 || i < 0 {
		t.Fatalf("run page: %d, no working-memory item", code)
	}
	item := page[i:]
	if j := strings.Index(item[1:], `<div class="item`); j >= 0 {
		item = item[:j+1] // up to the next part of the prompt
	}
	if !strings.Contains(item, `<div class="meta wm-note">`+modeNote+`</div>`) {
		t.Errorf("the run page's working-memory item lacks the run's note: %s", item)
	}
	code, body = get(t, ts.URL+"/ui/threads/t1", "")
	page = html.UnescapeString(unwrapped(body))
	for _, want := range []string{`<span class="kind">version 2 · schema mode</span>`, `<span class="kind">version 1 · template mode</span>`} {
		if code != 200 || !strings.Contains(page, want) {
			t.Errorf("thread page (%d) lacks %q", code, want)
		}
	}
}

// TestBrowserWorkingMemoryMode: the note and the versions' modes of
// TestWorkingMemoryModeChangePages as Chromium renders the pages (the
// labels' text content: the style shows them in capitals). It skips when
// Chromium is absent, except in CI.
func TestBrowserWorkingMemoryMode(t *testing.T) {
	chromium := findChromium(t)
	ts := modeChangeServer(t)
	tab := openBrowser(t, chromium)
	loadDOM(t, tab, ts.URL+"/ui/runs/run-m")
	if text := run(t, tab, "the run's working-memory part", chromedp.Text(chromedp.CSS(".item.working-memory"))); !strings.Contains(text, modeNote) {
		t.Errorf("run page: the working-memory part reads %q, want the note %q", text, modeNote)
	}
	loadDOM(t, tab, ts.URL+"/ui/threads/t1")
	const kinds = `Array.from(document.querySelectorAll(".item.working-memory .kind"), e => e.textContent).join("\n")`
	if text := run(t, tab, "the versions' labels", chromedp.Evaluate[string](kinds)); text != "version 2 · schema mode\nversion 1 · template mode" {
		t.Errorf("thread page: the versions' labels read %q, want each with its mode", text)
	}
}

// modeNote is the run's workingMemoryNote in modeChangeServer.
const modeNote = "written in template mode, shown in a schema-mode working memory"

// modeChangeServer serves the inspector over an engine whose thread t1
// has a state written in template mode (v1), a run run-m composed over it
// in schema mode, then a schema state (v2).
func modeChangeServer(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	old := enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Template: "# Notes\n"}})
	if _, err := old.Append(ctx, engine.AppendRequest{ThreadID: "t1", ResourceID: "r1", Messages: []engine.Message{{Role: "user", Content: "I am Ana"}}}); err != nil {
		t.Fatal(err)
	}
	mem, _ := old.WorkingMemory()
	if _, err := mem.Set(ctx, working.ThreadKey("t1"), "# Notes\n- Ana\n", working.Origin{}); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}})
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-m", ThreadID: "t1"}); err != nil {
		t.Fatal(err)
	}
	mem, _ = e.WorkingMemory()
	if _, err := mem.Set(ctx, working.ThreadKey("t1"), `{"name":"Ana"}`, working.Origin{}); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts
}
