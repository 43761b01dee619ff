package inspector_test

import (
	"bytes"
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
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// seed stores a conversation, two working-memory versions and a run with
// recalled turns, and returns a server with the inspector at /ui/ and its
// sign-in sessions with the default options.
func seed(t *testing.T, tokens *server.Tokens) (*engine.Engine, *httptest.Server) {
	t.Helper()
	return seedSessions(t, tokens, server.SessionOptions{})
}

// seedSessions is seed with sign-in sessions of options opt (a clock, caps).
func seedSessions(t *testing.T, tokens *server.Tokens, opt server.SessionOptions) (*engine.Engine, *httptest.Server) {
	t.Helper()
	sessions, err := server.NewSessions(opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fake := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(fmt.Sprintf(`{"observations":[{"text":"Ana adopted a retired greyhound named Pepper","seqs":[%d]},{"text":"Pepper steals socks","seqs":[%d]}]}`,
			enginetest.ChunkSeq(req, 0), enginetest.ChunkSeq(req, 2))).Response, nil
	}))
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: fake.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer"})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# User\n- Name:\n- Pet:\n"}, Observe: &engine.ObserveConfig{Model: model}, RecentN: 2})
	turns := []string{
		"Hi! I'm Ana and I just adopted a retired greyhound named Pepper.",
		"Congratulations! Greyhounds are gentle. How is Pepper settling in?",
		"She sleeps 18 hours a day and steals socks <script>alert(1)</script>.",
		"Sock theft is a classic. Keep the laundry basket up high.",
		"By the way I'm planning a trip to Lisbon in May.",
		"Lisbon in May is lovely: try the tile museum.",
		"What should I feed Pepper before a long car ride?",
	}
	var msgs []engine.Message
	for i, s := range turns {
		msgs = append(msgs, engine.Message{Role: []string{"user", "assistant"}[i%2], Content: s})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "ana-1", ResourceID: "ana", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "bob-1", ResourceID: "bob", Messages: []engine.Message{{Role: "user", Content: "bob's secret diary"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Observe(ctx, "ana-1", observe.Options{Force: true, NoReflect: true}); err != nil {
		t.Fatal(err)
	}
	mem, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	mem.Set(ctx, working.ThreadKey("ana-1"), "# User\n- Name: Ana\n- Pet:\n", working.Origin{RunID: "run-0"})
	mem.Set(ctx, working.ThreadKey("ana-1"), "# User\n- Name: Ana\n- Pet: Pepper, a greyhound\n", working.Origin{RunID: "run-0"})
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "ana-1", RecentN: 2, Query: "greyhound Pepper socks",
		Recall: &recall.Options{TopK: 1, MessageRange: recall.Range{Before: 1, After: 1}}}); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Engine: e, Tokens: tokens, Sessions: sessions, Logger: slog.New(slog.DiscardHandler), Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}, CookieMount: "/ui/",
		Public: map[string]http.Handler{"/ui/login": inspector.Login(tokens, sessions, nil), inspector.LogoutPath: inspector.Logout(sessions)}, LoginPath: "/ui/login"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return e, ts
}

// unwrapped is an HTML page without the <bdi> elements that isolate its
// stored fields (bidi.go), for a test that looks for a field beside the
// page's own text.
func unwrapped(page string) string {
	return strings.NewReplacer("<bdi>", "", "</bdi>", "").Replace(page)
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	return res.StatusCode, b.String()
}

// TestPages renders each page over HTTP and checks what it says: the
// timeline with score bars, the replay diff with the hash check, the
// working-memory diff, escaping, no script and nothing loaded from
// elsewhere; a tenant gets 404 for another resource's thread and run.
func TestPages(t *testing.T) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	if status, body := get(t, ts.URL+"/ui/login", ""); status != 200 || !strings.Contains(body, "<form") {
		t.Errorf("sign-in page: %d", status)
	}
	cases := []struct {
		path string
		want []string
	}{
		{"/ui/", []string{"resource ana", "ana-1"}},
		{"/ui/threads/ana-1", []string{"Pepper", "run-1", "Ana adopted a retired greyhound", `href="#seq-1"`, "version 2", `<div class="add">&#43; - Pet: Pepper, a greyhound`, `<div class="del">- - Pet:`, "&lt;script&gt;"}},
		{"/ui/runs/run-1", []string{"The prompt, top to bottom", "observation", "source seq", "recalled hit", "range neighbour", "recent", "working memory", "fused", "lexical", "vector", "✓ reproduced", `class="bar"`}},
		{"/ui/runs/run-1?without=observations", []string{`<div class="del">- - Ana adopted a retired greyhound`}},
		{"/ui/runs/run-1?without=recalled", []string{"counterfactual", `class="msg removed"`, "− original, + counterfactual"}},
	}
	for _, c := range cases {
		status, body := get(t, ts.URL+c.path, "ana-secret-1")
		if status != 200 {
			t.Fatalf("%s: %d %s", c.path, status, body)
		}
		for _, w := range c.want {
			if !strings.Contains(unwrapped(body), w) {
				t.Errorf("%s lacks %q", c.path, w)
			}
		}
		if strings.Contains(body, "<script") || strings.Contains(body, `src="http`) || strings.Contains(body, `href="http`) || strings.Contains(body, "bob") {
			t.Errorf("%s has a script, a remote reference or another resource's data", c.path)
		}
	}
	if status, _ := get(t, ts.URL+"/ui/threads/bob-1", "ana-secret-1"); status != 404 {
		t.Errorf("another resource's thread: %d, want 404", status)
	}
	if status, _ := get(t, ts.URL+"/ui/", ""); status != 401 {
		t.Errorf("no token: %d, want 401", status)
	}
	// A browser without a token is sent to the sign-in page.
	req0, _ := http.NewRequest("GET", ts.URL+"/ui/runs/run-1", nil)
	req0.Header.Set("Accept", "text/html,application/xhtml+xml")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if res, err := noRedirect.Do(req0); err != nil || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/ui/login?next=%2Fui%2Fruns%2Frun-1" {
		t.Errorf("a browser without a token: %v %v, want a redirect to /ui/login?next=%%2Fui%%2Fruns%%2Frun-1", err, res)
	}
	// The sign-in page's cookie authenticates reads, never writes.
	session := signIn(t, ts, "ana-secret-1")
	req, _ := http.NewRequest("GET", ts.URL+"/ui/threads/ana-1", nil)
	req.AddCookie(session)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
		t.Errorf("page with the token cookie: %v %v", err, res)
	}
	req, _ = http.NewRequest("DELETE", ts.URL+"/v1/threads/ana-1", nil)
	req.AddCookie(session)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 401 {
		t.Errorf("a write with only the token cookie: %v %v, want 401", err, res)
	}
}
