package inspector_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// controlText is stored text holding a carriage return no line feed
// follows, an escape sequence (ESC [31m), a line separator and a NEL
// (U+0085, a C1 control), then a CRLF line break, which passes as a line
// break. Each of the first four is shown as a marker wherever the text
// is: the prompt writes each as an escape (render.Escaped).
const controlText = "socks alert\rfine \x1b[31mred\u2028forged\u0085end\r\nsecond line"

// controlMarks are the markers controlText shows, in its order.
const controlMarks = "[U+000D] [U+001B] [U+2028] [U+0085]"

// seedControl stores thread ctl-1 (resource eve) whose first message,
// working memory and observation hold controlText, and run run-ctl, which
// recalls that message (a search result) beside its recent turns, and
// returns a server with the inspector at /ui/ and no token file.
func seedControl(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	fake := openaitest.New(t, openaitest.WithChat(func(req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		obs, err := json.Marshal(map[string]any{"observations": []map[string]any{{"text": "observed " + controlText, "seqs": []int64{enginetest.ChunkSeq(req, 0)}}}})
		if err != nil {
			return openai.ChatCompletionResponse{}, err
		}
		return openaitest.Text(string(obs)).Response, nil
	}))
	model, err := observe.NewOpenAIModel(observe.OpenAIConfig{BaseURL: fake.URL, APIKey: openaitest.DefaultAPIKey, Model: "fake-observer"})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.MustOpen(t, engine.Config{WorkingMemory: &working.Config{Template: "# Notes\n"}, Observe: &engine.ObserveConfig{Model: model}, RecentN: 2})
	msgs := []engine.Message{{Role: engine.RoleUser, Content: controlText}}
	for i, s := range []string{"noted", "the weather is mild", "good to hear", "any news about the socks?"} {
		msgs = append(msgs, engine.Message{Role: []string{engine.RoleAssistant, engine.RoleUser}[i%2], Content: s})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "ctl-1", ResourceID: "eve", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Observe(ctx, "ctl-1", observe.Options{Force: true, NoReflect: true}); err != nil {
		t.Fatal(err)
	}
	mem, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Set(ctx, working.ThreadKey("ctl-1"), "# Notes\r\n- "+controlText+"\r\n", working.Origin{RunID: "run-0"}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-ctl", ThreadID: "ctl-1", RecentN: 2, Query: "socks alert",
		Recall: &recall.Options{TopK: 1}}); err != nil {
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

// controlPlaces are the parts of the pages where controlText is stored
// text, each a CSS selector and what its text shows as Chromium renders
// it: the four markers in the full text (a message, a working-memory
// line), the escape alone in a text whose white space mnemo folds (an
// observation, written by the observer on one line; a run's preview of a
// recalled turn, memctx's one-line preview), and the prompt's escapes in
// the replayed prompt (\u000d in a message, &#xD; in the working memory
// of the system part). A CRLF is a line break in each full text.
var controlPlaces = []struct{ page, what, sel, want string }{
	{"/ui/threads/ctl-1", "the message", "#seq-1 td.text", "socks alert[U+000D]fine [U+001B][31mred[U+2028]forged[U+0085]end\nsecond line"},
	{"/ui/threads/ctl-1", "the working memory", ".working-memory .diff", "- socks alert[U+000D]fine [U+001B][31mred[U+2028]forged[U+0085]end\n+ second line"},
	{"/ui/threads/ctl-1", "the observation", "tr:not([id]) > td.text", "observed socks alert fine [U+001B][31mred forged end second line"},
	{"/ui/runs/run-ctl", "the recalled turn", "#timeline .item.hit .text", "socks alert fine [U+001B][31mred forged end second line"},
	{"/ui/runs/run-ctl", "the replayed message", "#replay-messages", `socks alert\u000dfine \u001b[31mred\u2028forged\u0085end` + "\nsecond line"},
	{"/ui/runs/run-ctl", "the replayed working memory", "#system-diff", "- socks alert&#xD;fine &#x1B;[31mred&#x2028;forged&#x85;end\n  second line"},
}

// TestControlMarksServed: the pages as served show a carriage return no
// line feed follows, ESC, U+2028 and U+0085 of stored text as markers
// naming them (a message, a working-memory line; the prompt's escapes in
// a replay), pass a CRLF, and hold none of the four raw. Before, a lone
// carriage return went out raw: HTML reads it as a line break, where a
// terminal draws the rest of the line over its start and the model's
// prompt has \u000d. TestBrowserControl checks every place as rendered.
func TestControlMarksServed(t *testing.T) {
	ts := seedControl(t)
	const marked = `socks alert<span class="cp ctl" title="U&#43;000D CONTROL CHARACTER">[U&#43;000D]</span>fine <span class="cp ctl" title="U&#43;001B CONTROL CHARACTER">[U&#43;001B]</span>[31mred<span class="cp fmt" title="U&#43;2028 LINE SEPARATOR">[U&#43;2028]</span>forged<span class="cp ctl" title="U&#43;0085 CONTROL CHARACTER">[U&#43;0085]</span>end`
	for _, c := range []struct {
		path, want string
		n          int
	}{
		{"/ui/threads/ctl-1", marked + "\r\nsecond line", 1}, // the message
		{"/ui/threads/ctl-1", "- " + marked + "</bdi>", 1},   // the working memory's line
		{"/ui/runs/run-ctl", `socks alert\u000dfine \u001b[31mred\u2028forged\u0085end` + "\r\nsecond line", 1},
	} {
		page := getPage(t, ts.URL+c.path)
		if got := strings.Count(page, c.want); got != c.n {
			t.Errorf("%s: %d copies of %q, want %d", c.path, got, c.want, c.n)
		}
		if strings.ContainsAny(page, "\x1b\u2028\u0085") || strings.Contains(strings.ReplaceAll(page, "\r\n", ""), "\r") {
			t.Errorf("%s: the page holds a carriage return no line feed follows, ESC, U+2028 or U+0085 raw", c.path)
		}
	}
}

// TestBrowserControl loads the pages in headless Chromium: each place of
// controlPlaces shows what it lists, and each page the note on shown
// characters. It skips when Chromium is absent, as TestBrowser.
func TestBrowserControl(t *testing.T) {
	chromium := findChromium(t)
	ts := seedControl(t)
	tab := openBrowser(t, chromium)
	shots := os.Getenv("MNEMO_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	os.MkdirAll(shots, 0o755)
	for _, path := range []string{"/ui/threads/ctl-1", "/ui/runs/run-ctl"} {
		navigate(t, tab, ts.URL+path)
		checkShown(t, tab, path, true)
		screenshotTo(t, tab, filepath.Join(shots, "control-"+filepath.Base(path)+".png"))
		for _, p := range controlPlaces {
			if p.page != path {
				continue
			}
			got := evalString(t, tab, `[...document.querySelectorAll(`+jsString(p.sel)+`)].map(e => e.innerText).join("\n")`)
			if !strings.Contains(got, p.want) {
				t.Errorf("%s, %s (%s): shows\n%q\nwant it to hold\n%q", path, p.what, p.sel, got, p.want)
			}
		}
	}
}

// getPage is the body of url, fetched without a token, failing the test
// unless it is a 200.
func getPage(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d:\n%s", url, resp.StatusCode, b)
	}
	return string(b)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
