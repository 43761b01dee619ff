package inspector_test

import (
	"context"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/mnemo-go/mnemo/server"
)

// TestBrowser loads the pages in headless Chromium, driven by chromedp,
// checks the rendered DOM and saves screenshots (to $MNEMO_SCREENSHOTS,
// else a temporary directory), then signs in and out as a person does
// (browserSignOut). It skips when Chromium is absent, except in CI.
func TestBrowser(t *testing.T) {
	chromium := findChromium(t)
	_, ts := seed(t, nil)
	shots := os.Getenv("MNEMO_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	os.MkdirAll(shots, 0o755)
	tab := openBrowser(t, chromium)
	pages := []struct{ name, path, want string }{
		{"index", "/ui/", "ana-1"},
		{"thread", "/ui/threads/ana-1", "Pet: Pepper, a greyhound"},
		{"memctx", "/ui/runs/run-1", "reproduced"},
		{"replay-without-observations", "/ui/runs/run-1?without=observations#replay", "counterfactual"},
		{"replay-without-recalled", "/ui/runs/run-1?without=recalled#replay", "counterfactual"},
	}
	for _, p := range pages {
		if dom := loadDOM(t, tab, ts.URL+p.path); !strings.Contains(dom, p.want) {
			t.Errorf("%s: the rendered page lacks %q", p.name, p.want)
		}
		shot := filepath.Join(shots, p.name+".png")
		screenshot(t, tab, shot)
		checkPicture(t, shot)
		t.Logf("screenshot %s", shot)
	}
	// The index's next link (by cursor), followed as rendered: the page
	// after the first thread holds the second.
	dom := loadDOM(t, tab, ts.URL+"/ui/?limit=1")
	m := regexp.MustCompile(`href="(\?cursor=[A-Za-z0-9_-]+&amp;limit=1)">next<`).FindStringSubmatch(dom)
	if m == nil || !strings.Contains(dom, `href="/ui/threads/ana-1"`) {
		t.Fatalf("index by 1: no next link by cursor, or not ana-1:\n%s", dom)
	}
	dom = loadDOM(t, tab, ts.URL+"/ui/"+html.UnescapeString(m[1]))
	if !strings.Contains(dom, `href="/ui/threads/bob-1"`) || strings.Contains(dom, `href="/ui/threads/ana-1"`) || strings.Contains(dom, ">next<") {
		t.Errorf("the next page: want bob-1 alone and no next link:\n%s", dom)
	}
	browserSignOut(t, chromium, shots)
}

// browserSignOut signs in and out of a server with a token file as a
// person does, clicking and typing in Chromium (a browser of its own,
// with no cookie yet): a page asked for sends the browser to the sign-in
// page, the token typed there comes back to it with a Sign out button,
// whose click shows the sign-in page; the page asked for again then needs
// the token again. A copy of the browser's cookie (not the token) read the
// page while it was signed in and is refused after its sign-out.
func browserSignOut(t *testing.T, chromium, shots string) {
	tok, err := server.ParseTokens([]byte(`{"tokens":[{"token":"ana-secret-1","resources":["ana"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := seed(t, tok)
	tab := openBrowser(t, chromium)
	if at := navigate(t, tab, ts.URL+"/ui/threads/ana-1"); at != "/ui/login" {
		t.Fatalf("signed out, the thread page went to %s, want /ui/login", at)
	}
	do(t, tab, "type the token", click(`input[name="token"]`), chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), "ana-secret-1"))
	if at := clickToLoad(t, tab, `button[type="submit"]`); at != "/ui/threads/ana-1" {
		t.Fatalf("signed in: went to %s, want /ui/threads/ana-1", at)
	}
	if text := bodyText(t, tab); !strings.Contains(text, "Pet: Pepper, a greyhound") || !strings.Contains(text, "Sign out") {
		t.Fatalf("signed in: the thread page lacks its text or the Sign out button:\n%s", text)
	}
	shot := filepath.Join(shots, "signed-in.png")
	screenshot(t, tab, shot)
	checkPicture(t, shot)
	copied := browserCookie(t, tab, ts.URL+"/ui/")
	if strings.Contains(copied.Value, "ana-secret-1") {
		t.Errorf("the browser's cookie holds the token: %q", copied.Value)
	}
	if status, _ := getWith(t, ts, "/ui/threads/ana-1", copied, false); status != 200 {
		t.Fatalf("the browser's cookie sent by another client while signed in: %d, want 200", status)
	}
	if at := clickToLoad(t, tab, `form.signout button`); at != "/ui/login" {
		t.Errorf("signed out: went to %s, want /ui/login", at)
	}
	if status, _ := getWith(t, ts, "/ui/threads/ana-1", copied, false); status != http.StatusUnauthorized {
		t.Errorf("a copy of the browser's cookie after its sign-out: %d, want 401", status)
	}
	if text := bodyText(t, tab); !strings.Contains(text, "Paste a token") || strings.Contains(text, "Sign out") {
		t.Errorf("signed out: want the sign-in page, got:\n%s", text)
	}
	shot = filepath.Join(shots, "signed-out.png")
	screenshot(t, tab, shot)
	checkPicture(t, shot)
	if at := navigate(t, tab, ts.URL+"/ui/threads/ana-1"); at != "/ui/login" {
		t.Errorf("after signing out, the thread page went to %s, want /ui/login", at)
	}
	if text := bodyText(t, tab); strings.Contains(text, "Pepper") {
		t.Errorf("after signing out, the thread page still shows:\n%s", text)
	}
}

// browserCookie is the sign-in cookie the tab's browser holds for u: a
// copy, as one taken from the browser's profile would be.
func browserCookie(t *testing.T, tab context.Context, u string) *http.Cookie {
	t.Helper()
	res, err := chromedp.Call(tab, network.GetCookies, network.GetCookiesParams{URLs: []string{u}})
	if err != nil {
		t.Fatalf("the browser's cookies: %v", err)
	}
	for _, c := range res.Cookies {
		if c.Name == server.SessionCookie {
			return &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	t.Fatalf("the browser holds no %s cookie for %s", server.SessionCookie, u)
	return nil
}

// findChromium is the path of the first of chromium, chromium-browser
// and google-chrome on $PATH. It skips the test when there is none, and
// fails it under CI=true (.ci/run installs chromium).
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is absent (.ci/run installs it)")
	}
	t.Skip("chromium is absent: install it (apt-get install chromium) to run the browser test")
	return ""
}

// openBrowser starts the Chromium at path chromium through chromedp's
// allocator and returns the context of its one tab, 1280×900 pixels.
// Every step on the tab must finish within a minute of the start; the
// test's cleanup ends the browser. The browser is headless, without the
// sandbox (CI runs as root), and without a GPU; chromedp gives it a
// temporary user data directory, removed when it ends, and its default
// options turn off the background networking (updates, sync, safe
// browsing). Host names resolve to nothing, so that the test's pages on
// 127.0.0.1 are the only network it reaches.
func openBrowser(t *testing.T, chromium string) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancel()
	})
	do(t, tab, "start chromium")
	return tab
}

// do runs the steps on the tab, failing the test with what they were for.
func do(t *testing.T, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(tab, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// run runs one action on the tab and returns its value, failing the test
// with what it was for.
func run[T any](t *testing.T, tab context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(tab, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// navigate loads url in the tab and returns the path of the page it
// shows once loaded, after any redirect.
func navigate(t *testing.T, tab context.Context, url string) string {
	t.Helper()
	do(t, tab, "load "+url, chromedp.Navigate(url))
	return pagePath(t, tab)
}

// loadDOM loads url in the tab and returns the page's DOM as rendered,
// serialized as HTML.
func loadDOM(t *testing.T, tab context.Context, url string) string {
	t.Helper()
	navigate(t, tab, url)
	return run(t, tab, "the DOM of "+url, chromedp.OuterHTML(chromedp.CSS("html")))
}

// pagePath is the path of the page the tab shows.
func pagePath(t *testing.T, tab context.Context) string {
	t.Helper()
	loc := run(t, tab, "the page's location", chromedp.Location())
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("the page's location %q: %v", loc, err)
	}
	return u.Path
}

// clickToLoad clicks the element selector names (click), waits for the
// page the click loads (a form's submission, after any redirect) and
// returns its path.
func clickToLoad(t *testing.T, tab context.Context, selector string) string {
	t.Helper()
	run(t, tab, "click "+selector+" and load the next page", chromedp.WaitEvent(page.LoadEventFired, nil, click(selector)))
	return pagePath(t, tab)
}

// click clicks the middle of the element selector names with the mouse,
// as a person would: once the element is shown, scrolled into view, and
// not under another element.
func click(selector string) chromedp.Action[chromedp.Void] {
	sel := chromedp.CSS(selector)
	return chromedp.Steps(
		chromedp.WaitVisible(sel),
		chromedp.ScrollIntoView(sel),
		uncovered(selector),
		chromedp.Click(sel),
	)
}

// uncovered fails when the middle of the element selector names is under
// another element, where a person's click would not reach it.
func uncovered(selector string) chromedp.Action[chromedp.Void] {
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); const r = e.getBoundingClientRect();
		return e.contains(document.elementFromPoint(r.x + r.width/2, r.y + r.height/2)); })()`, selector)
	return chromedp.Func(func(ctx context.Context, tab *chromedp.Target) error {
		hit, err := chromedp.Evaluate[bool](expr)(ctx, tab)
		if err != nil {
			return err
		}
		if !hit {
			return fmt.Errorf("click %s: another element covers it", selector)
		}
		return nil
	})
}

// bodyText is the visible text of the tab's page.
func bodyText(t *testing.T, tab context.Context) string {
	t.Helper()
	return run(t, tab, "the page's text", chromedp.Text(chromedp.CSS("body")))
}

// screenshot saves the tab's whole page as a PNG at path.
func screenshot(t *testing.T, tab context.Context, path string) {
	t.Helper()
	data := run(t, tab, "screenshot "+path, chromedp.FullScreenshot(100))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
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
