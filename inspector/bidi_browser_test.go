package inspector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/inspector"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// Stored text of TestBrowserBidi: a right-to-left override and an
// unclosed right-to-left isolate (the characters of "Trojan Source"),
// and right-to-left messages that must still read right to left.
const (
	rlo        = "\u202e"
	rli        = "\u2067"
	arabicText = "مرحبا، كيف حالك اليوم!"
	hebrewText = "שלום! מה שלומך?\nsee you in Lisbon."
	// hebrewInvoice is the Hebrew for invoice: after an unclosed U+2067,
	// the query's right-to-left text and the page's text after it were
	// one right-to-left isolate, the query drawn right of "recentN".
	hebrewInvoice = "חשבונית"
	// separated is a message holding a line separator and a paragraph
	// separator, which break its line on the page where a terminal or the
	// model's prompt may show none.
	separated = "line\u2028break\u2029end"
	// marked is a message whose Arabic letter mark (U+061C) drew the
	// years after it as "2024-1999" (a mark passed as it was), and whose
	// tag characters spell "obey", which no page shows.
	marked = "dates \u061c1999-2024 \U000e006f\U000e0062\U000e0065\U000e0079"
)

// TestBrowserBidi loads pages holding hostile stored text in headless
// Chromium and checks them as rendered: a run's query holding U+202E or
// an unclosed U+2067 leaves the labels after it ("recentN", "topK",
// "mode") in reading order (they read backwards when the query was not
// isolated), each such character is shown as a marker ("[U+202E]"), not
// applied, with the page's note saying so (hidden on a page without
// one), a line and a paragraph separator (U+2028, U+2029), an Arabic
// letter mark (U+061C) and tag characters are markers too, the years
// after the mark reading "1999-2024" (it drew "2024-1999" when it passed
// as it was), and an Arabic message reads right to left, right-aligned, its
// final "!" at its left end, a Hebrew line over an English one each in
// its own direction. It skips when Chromium is absent, as TestBrowser.
func TestBrowserBidi(t *testing.T) {
	chromium := findChromium(t)
	ts := seedBidi(t)
	tab := openBrowser(t, chromium)
	shots := os.Getenv("MNEMO_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	os.MkdirAll(shots, 0o755)
	for _, c := range []struct{ run, mark, word string }{{"run-rlo", "[U+202E]", "the invoice"}, {"run-rli", "[U+2067]", hebrewInvoice}} {
		navigate(t, tab, ts.URL+"/ui/runs/"+c.run)
		checkReadingOrder(t, tab, c.run, "h1 + p.meta", "thread", "resource", "query", c.word, "recentN", "topK", "mode")
		if got := evalString(t, tab, `[...document.querySelectorAll("h1 + p.meta .cp.bidi")].map(e => e.textContent).join(" ")`); got != c.mark {
			t.Errorf("%s: the query's markers are %q, want %q", c.run, got, c.mark)
		}
		checkShown(t, tab, c.run, true)
		screenshotTo(t, tab, filepath.Join(shots, "bidi-"+c.run+".png"))
	}

	navigate(t, tab, ts.URL+"/ui/threads/hostile-1")
	checkShown(t, tab, "thread page", true)
	text := bodyText(t, tab)
	for _, want := range []string{"pay invoice_[U+202E]fdp.exe today", "tool (lookup)", `→ lookup({"file":"x[U+2067]y"})`, "line[U+2028]break[U+2029]end",
		"dates [U+061C]1999-2024 [U+E006F][U+E0062][U+E0065][U+E0079]"} {
		if !strings.Contains(text, want) {
			t.Errorf("the thread page lacks %q:\n%s", want, text)
		}
	}
	checkRTL(t, tab)
	checkReadingOrder(t, tab, "thread page", "table:last-of-type", "dates", "1999", "2024")
	screenshotTo(t, tab, filepath.Join(shots, "bidi-thread.png"))

	navigate(t, tab, ts.URL+"/ui/")
	checkShown(t, tab, "index", true)
	if text := bodyText(t, tab); !strings.Contains(text, "hostile-1 · plan [U+202E]fdp.exe") {
		t.Errorf("the index lacks the title with its marker:\n%s", text)
	}
	navigate(t, tab, ts.URL+"/ui/threads/clean-1")
	checkShown(t, tab, "a thread without such characters", false)
}

// seedBidi stores the hostile thread (hostile-1, titled with U+202E; a
// message holds U+2028 and U+2029, another U+061C and tag characters), a
// clean one (clean-1) and two runs whose queries hold U+202E (run-rlo)
// and an unclosed U+2067 before Hebrew (run-rli), and returns a server with the
// inspector at /ui/ and no token file.
func seedBidi(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{RecentN: 10})
	msgs := []engine.Message{
		{Role: engine.RoleUser, Content: "pay invoice_" + rlo + "fdp.exe today"},
		{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"file":"x` + rli + `y"}`)}}},
		// A name holding U+202E is refused at Append (engine TestHostileInput).
		{Role: engine.RoleTool, ToolCallID: "c1", Name: "lookup", Content: "found"},
		{Role: engine.RoleUser, Content: arabicText},
		{Role: engine.RoleAssistant, Content: hebrewText},
		{Role: engine.RoleUser, Content: separated},
		{Role: engine.RoleAssistant, Content: marked},
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "hostile-1", ResourceID: "eve", Title: "plan " + rlo + "fdp.exe", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "clean-1", ResourceID: "eve", Messages: []engine.Message{{Role: engine.RoleUser, Content: "plain text only"}}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for run, query := range map[string]string{"run-rlo": "where is " + rlo + "the invoice", "run-rli": "where is " + rli + hebrewInvoice + " 7"} {
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "hostile-1", RecentN: 2, Query: query,
			Recall: &recall.Options{TopK: 1}}); err != nil {
			t.Fatal(err)
		}
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

// rect is a rendered box, in CSS pixels from the viewport's top left.
type rect struct{ Left, Top, Right, Bottom float64 }

// wordRectJS returns the box of the first occurrence of a text in the
// text nodes under the element a selector names (a Range over it), or
// null.
const wordRectJS = `((sel, word) => {
	const root = document.querySelector(sel);
	if (!root) return null;
	const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const i = n.data.indexOf(word);
		if (i < 0) continue;
		const r = document.createRange();
		r.setStart(n, i);
		r.setEnd(n, i + word.length);
		const b = r.getBoundingClientRect();
		return {Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom};
	}
	return null;
})(%q, %q)`

// wordRect is the rendered box of word under the element sel names.
func wordRect(t *testing.T, tab context.Context, sel, word string) rect {
	t.Helper()
	r := run(t, tab, "the box of "+word, chromedp.Evaluate[*rect](fmt.Sprintf(wordRectJS, sel, word)))
	if r == nil {
		t.Fatalf("%s holds no %q", sel, word)
	}
	return *r
}

// checkReadingOrder fails unless the words, under the element sel names,
// are rendered in reading order: each on a later line than the one
// before, or on its line and to its right.
func checkReadingOrder(t *testing.T, tab context.Context, page, sel string, words ...string) {
	t.Helper()
	prev := wordRect(t, tab, sel, words[0])
	for _, w := range words[1:] {
		r := wordRect(t, tab, sel, w)
		sameLine := r.Top < prev.Bottom && prev.Top < r.Bottom
		if sameLine && r.Left < prev.Left || !sameLine && r.Top < prev.Top {
			t.Errorf("%s: %q is drawn before the label ahead of it (%+v, then %+v): the line reads out of order", page, w, prev, r)
		}
		prev = r
	}
}

// checkShown checks that the page shows no bidirectional control (a
// mark among them), tag or interlinear annotation character, line
// separator or paragraph separator raw and that its note on shown characters is visible when want says so,
// hidden otherwise.
func checkShown(t *testing.T, tab context.Context, page string, want bool) {
	t.Helper()
	if raw := evalString(t, tab, `[...document.body.innerText].filter(c => /[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufff9-\ufffb\u{e0000}-\u{e007f}]/u.test(c)).map(c => "U+" + c.codePointAt(0).toString(16)).join(" ")`); raw != "" {
		t.Errorf("%s: shows %s raw", page, raw)
	}
	shown := evalString(t, tab, `(e => e ? getComputedStyle(e).display : "none")(document.getElementById("bidi-note"))`) != "none"
	if shown != want {
		t.Errorf("%s: the note on shown characters is visible: %v, want %v", page, shown, want)
	}
}

// checkRTL checks the thread page's right-to-left messages as drawn: the
// Arabic one right to left (its first word right of its last, the "!"
// that ends it at its left end) and right-aligned in its cell; of the
// Hebrew-then-English one, the Hebrew line right-aligned, the English
// line left-aligned.
func checkRTL(t *testing.T, tab context.Context) {
	t.Helper()
	cell := func(word string) rect {
		expr := fmt.Sprintf(`(() => { const td = [...document.querySelectorAll("td.text")].find(e => e.textContent.includes(%q));
			if (!td) return null; const b = td.getBoundingClientRect(); return {Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom}; })()`, word)
		r := run(t, tab, "the cell of "+word, chromedp.Evaluate[*rect](expr))
		if r == nil {
			t.Fatalf("no message cell holds %q", word)
		}
		return *r
	}
	// Each check's word is looked for in the whole table: the texts are
	// unique on the page.
	const sel = "table:last-of-type"
	ar := cell("مرحبا")
	first, last, bang := wordRect(t, tab, sel, "مرحبا"), wordRect(t, tab, sel, "اليوم"), wordRect(t, tab, sel, "اليوم!")
	if !(first.Left > last.Left) {
		t.Errorf("the Arabic message's first word is drawn left of its last: %+v, %+v", first, last)
	}
	if bang.Left > last.Left-1 || bang.Right-last.Right > 1 {
		// "اليوم!" spans the word and the "!": right to left, the "!"
		// widens it to the left of the word, not to its right.
		t.Errorf("the Arabic message's closing ! is not at its left end: word %+v, word and ! %+v", last, bang)
	}
	if mid := (ar.Left + ar.Right) / 2; first.Right < mid {
		t.Errorf("the Arabic message is not right-aligned: its first word ends at %.0f, its cell's middle is %.0f", first.Right, mid)
	}
	he, en := wordRect(t, tab, sel, "שלום"), wordRect(t, tab, sel, "see you")
	heCell := cell("see you")
	if mid := (heCell.Left + heCell.Right) / 2; he.Right < mid || en.Left > mid {
		t.Errorf("the Hebrew line should be right-aligned (ends at %.0f) and the English one left-aligned (starts at %.0f) about the cell's middle %.0f", he.Right, en.Left, mid)
	}
}

// evalString evaluates a JavaScript expression of a string on the tab.
func evalString(t *testing.T, tab context.Context, expr string) string {
	t.Helper()
	return run(t, tab, expr, chromedp.Evaluate[string](expr))
}

// screenshotTo saves the tab's whole page at path and checks it is not
// blank.
func screenshotTo(t *testing.T, tab context.Context, path string) {
	t.Helper()
	screenshot(t, tab, path)
	checkPicture(t, path)
	t.Logf("screenshot %s", path)
}
