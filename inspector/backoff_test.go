package inspector_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/server"
)

// TestThreadPageBackoff is obs67 item 4: a thread whose observer backs
// off showed nothing of it on its page (only the WARN line, and the
// count in /metrics). Now the thread page says which call waits, until
// when and why, for the owner's thread only: two malformed answers in a
// row on ana's turn back her thread's observer off (a flagged turn no
// longer does: obs68 skips it); bob's page, whose thread is observed,
// says nothing of it.
func TestThreadPageBackoff(t *testing.T) {
	ctx := context.Background()
	fake := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Mallory") {
			return openaitest.Text("not json").Response, nil
		}
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Bob keeps goats","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: fake.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{Observe: &engine.ObserveConfig{Model: model}, RecentN: 1})
	for _, c := range []struct{ thread, resource, text string }{
		{"ana-1", "ana", "Mallory was rude to Ana."},
		{"bob-1", "bob", "Bob keeps goats."},
	} {
		msgs := []engine.Message{{Role: "user", Content: c.text}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "Thanks."}, {Role: "assistant", Content: "Sure."}}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: c.thread, ResourceID: c.resource, Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			_, _ = e.Observe(ctx, c.thread, observe.Options{Force: true, NoReflect: true})
		}
	}
	if got := e.ObserveBackoffs("ana-1"); len(got) != 1 || got[0].Call != observe.BackoffObserver {
		t.Fatalf("ObserveBackoffs(ana-1) %+v, want ana's observer", got)
	}
	if got := e.ObserveBackoffs(""); got != nil {
		t.Fatalf("ObserveBackoffs(\"\") %+v, want nil (never every thread's)", got)
	}
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]},{"token":"bob-secret-1","resources":["bob"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Tokens: tok, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	until := e.ObserveBackoffs("ana-1")[0].Until.UTC().Format("2006-01-02 15:04:05")
	status, body := get(t, ts.URL+"/ui/threads/ana-1", "ana-secret-1")
	if want := "The observer backing off until " + until + " UTC (2 in a row): "; status != 200 || !strings.Contains(unwrapped(body), want) || !strings.Contains(body, "malformed answer") {
		t.Fatalf("ana's thread page: %d, want %q and the endpoint's reason:\n%s", status, want, body)
	}
	status, body = get(t, ts.URL+"/ui/threads/bob-1", "bob-secret-1")
	if status != 200 || strings.Contains(body, "backing off") || strings.Contains(body, "malformed") {
		t.Fatalf("bob's thread page: %d, shows a back-off:\n%s", status, body)
	}
	if status, _ := get(t, ts.URL+"/ui/threads/ana-1", "bob-secret-1"); status != 404 {
		t.Fatalf("ana's thread page with bob's token: %d, want 404", status)
	}
	t.Run("Browser", func(t *testing.T) {
		// As rendered by headless Chromium, from a server with no token
		// file (loopback only), over the same engine.
		chromium := findChromium(t)
		open, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
			Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
		if err != nil {
			t.Fatal(err)
		}
		ots := httptest.NewServer(open.Handler())
		t.Cleanup(ots.Close)
		dom := unwrapped(loadDOM(t, openBrowser(t, chromium), ots.URL+"/ui/threads/ana-1"))
		if want := "The observer backing off until " + until + " UTC (2 in a row): "; !strings.Contains(dom, want) || !strings.Contains(dom, "malformed answer") {
			t.Fatalf("the rendered page lacks %q and the reason:\n%s", want, dom)
		}
	})
}

// TestThreadPageSkip is obs68: a turn the model endpoint refused for its
// content, sent alone, is skipped; the thread page says which seqs were
// not observed and why (seqs and reason only), on the owner's thread only.
func TestThreadPageSkip(t *testing.T) {
	ctx := context.Background()
	fake := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Mallory") {
			return openai.ChatCompletionResponse{}, &openaitest.StatusError{Status: 403, Message: `fake-observer requires moderation. Your input was flagged for "harassment".`}
		}
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Ana thanked","seqs":[%d]}]}`, enginetest.ChunkSeq(req, 0))).Response, nil
	}))
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: fake.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer", Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{Observe: &engine.ObserveConfig{Model: model}, RecentN: 1})
	msgs := []engine.Message{{Role: "user", Content: "Mallory was rude to Ana."}, {Role: "assistant", Content: "Noted."}, {Role: "user", Content: "Thanks."}, {Role: "assistant", Content: "Sure."}}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "ana-1", ResourceID: "ana", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Observe(ctx, "ana-1", observe.Options{Force: true, NoReflect: true})
	if err != nil || len(res.Skipped) != 1 || res.Skipped[0].FromSeq != 1 || res.Skipped[0].ToSeq != 1 {
		t.Fatalf("Observe: %+v, %v; want seq 1 skipped", res, err)
	}
	if sk, err := e.ObserveSkips(ctx, "ana-1"); err != nil || len(sk) != 1 {
		t.Fatalf("ObserveSkips = %+v, %v", sk, err)
	}
	srv, err := server.New(server.Config{Engine: e, Logger: slog.New(slog.DiscardHandler),
		Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	status, body := get(t, ts.URL+"/ui/threads/ana-1", "")
	if want := "Seqs 1–1 not observed: the model endpoint refused their content (content refused, "; status != 200 || !strings.Contains(unwrapped(body), want) || strings.Contains(body, "harassment") {
		t.Fatalf("ana's thread page: %d, want %q and not the endpoint's message:\n%s", status, want, body)
	}
	if want := "the observer went on past them and sends them again once, only under another observe.model."; !strings.Contains(unwrapped(body), want) {
		t.Fatalf("ana's thread page: want %q (a skip is sent again under another model):\n%s", want, body)
	}
}
