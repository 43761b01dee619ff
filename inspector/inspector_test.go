package inspector_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/fakeopenai"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// seed stores a conversation, two working-memory versions and a run with
// recalled turns, and returns a server with the inspector at /ui/.
func seed(t *testing.T, tokens *server.Tokens) (*engine.Engine, *httptest.Server) {
	t.Helper()
	ctx := context.Background()
	fake := fakeopenai.New(t, fakeopenai.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return fakeopenai.Text(`{"observations":[{"text":"Ana adopted a retired greyhound named Pepper","seqs":[1]},{"text":"Pepper steals socks","seqs":[3]}]}`).Response, nil
	}))
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: fake.URL, APIKey: fakeopenai.DefaultAPIKey, Model: "fake-observer"})
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
	srv, err := server.New(server.Config{Engine: e, Tokens: tokens, Logger: slog.New(slog.DiscardHandler), Mount: map[string]func(*server.Principal) http.Handler{"/ui/": inspector.Handler(e, inspector.Options{Version: "test"})}, CookieMount: "/ui/",
		Public: map[string]http.Handler{"/ui/login": inspector.Login(tokens), inspector.LogoutPath: inspector.Logout()}, LoginPath: "/ui/login"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return e, ts
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
			if !strings.Contains(body, w) {
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
	req, _ := http.NewRequest("GET", ts.URL+"/ui/threads/ana-1", nil)
	req.AddCookie(&http.Cookie{Name: server.TokenCookie, Value: "ana-secret-1"})
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 200 {
		t.Errorf("page with the token cookie: %v %v", err, res)
	}
	req, _ = http.NewRequest("DELETE", ts.URL+"/v1/threads/ana-1", nil)
	req.AddCookie(&http.Cookie{Name: server.TokenCookie, Value: "ana-secret-1"})
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 401 {
		t.Errorf("a write with only the token cookie: %v %v, want 401", err, res)
	}
}

// TestBrowser loads the pages in headless Chromium, checks the rendered
// DOM and saves screenshots (to $MNEMO_SCREENSHOTS, else a temporary
// directory). It skips when Chromium is absent, except in CI.
func TestBrowser(t *testing.T) {
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is absent (.ci/run installs it)")
		}
		t.Skip("chromium is absent: install it (apt-get install chromium) to run the browser test")
	}
	_, ts := seed(t, nil)
	shots := os.Getenv("MNEMO_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	os.MkdirAll(shots, 0o755)
	pages := []struct{ name, path, want string }{
		{"index", "/ui/", "ana-1"},
		{"thread", "/ui/threads/ana-1", "Pet: Pepper, a greyhound"},
		{"memctx", "/ui/runs/run-1", "reproduced"},
		{"replay-without-observations", "/ui/runs/run-1?without=observations#replay", "counterfactual"},
		{"replay-without-recalled", "/ui/runs/run-1?without=recalled#replay", "counterfactual"},
	}
	for _, p := range pages {
		dom := runChromium(t, chromium, "--dump-dom", ts.URL+p.path)
		if !strings.Contains(dom, p.want) {
			t.Errorf("%s: the rendered page lacks %q", p.name, p.want)
		}
		shot := filepath.Join(shots, p.name+".png")
		runChromium(t, chromium, "--screenshot="+shot, "--window-size=1280,1800", ts.URL+p.path)
		checkPicture(t, shot)
		t.Logf("screenshot %s", shot)
	}
	// The index's next link (by cursor), followed as rendered: the page
	// after the first thread holds the second.
	dom := runChromium(t, chromium, "--dump-dom", ts.URL+"/ui/?limit=1")
	m := regexp.MustCompile(`href="(\?cursor=[A-Za-z0-9_-]+&amp;limit=1)">next<`).FindStringSubmatch(dom)
	if m == nil || !strings.Contains(dom, `href="/ui/threads/ana-1"`) {
		t.Fatalf("index by 1: no next link by cursor, or not ana-1:\n%s", dom)
	}
	dom = runChromium(t, chromium, "--dump-dom", ts.URL+"/ui/"+html.UnescapeString(m[1]))
	if !strings.Contains(dom, `href="/ui/threads/bob-1"`) || strings.Contains(dom, `href="/ui/threads/ana-1"`) || strings.Contains(dom, ">next<") {
		t.Errorf("the next page: want bob-1 alone and no next link:\n%s", dom)
	}
	browserSignOut(t, chromium, shots)
}

// browserSignOut signs in and out of a server with a token file as a
// person does, clicking and typing in Chromium: a page asked for sends
// the browser to the sign-in page, the token typed there comes back to
// it with a Sign out button, whose click shows the sign-in page; the page
// asked for again then needs the token again.
func browserSignOut(t *testing.T, chromium, shots string) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	tb := openTab(t, chromium)
	tb.navigate(ts.URL+"/ui/threads/ana-1", "/ui/login")
	tb.typeText(`input[name="token"]`, "ana-secret-1")
	tb.click(`button[type="submit"]`)
	tb.waitPath("/ui/threads/ana-1")
	if text := tb.text(); !strings.Contains(text, "Pet: Pepper, a greyhound") || !strings.Contains(text, "Sign out") {
		t.Fatalf("signed in: the thread page lacks its text or the Sign out button:\n%s", text)
	}
	shot := filepath.Join(shots, "signed-in.png")
	tb.screenshot(shot)
	checkPicture(t, shot)
	tb.click(`form.signout button`)
	tb.waitPath("/ui/login")
	if text := tb.text(); !strings.Contains(text, "Paste a token") || strings.Contains(text, "Sign out") {
		t.Errorf("signed out: want the sign-in page, got:\n%s", text)
	}
	shot = filepath.Join(shots, "signed-out.png")
	tb.screenshot(shot)
	checkPicture(t, shot)
	tb.navigate(ts.URL+"/ui/threads/ana-1", "/ui/login")
	if text := tb.text(); strings.Contains(text, "Pepper") {
		t.Errorf("after signing out, the thread page still shows:\n%s", text)
	}
}

func runChromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	all := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--no-first-run", "--disable-extensions"}, args...)
	cmd := exec.CommandContext(ctx, bin, all...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

// checkPicture fails when a screenshot is missing or blank (a page that
// did not render is one colour).
func checkPicture(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	colours := map[string]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[fmt.Sprint(r>>8, g>>8, bl>>8)] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("screenshot %s has %d colours: blank", path, len(colours))
	}
}
