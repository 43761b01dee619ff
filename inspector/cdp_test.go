package inspector_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// tab drives one page of a headless Chromium through the DevTools
// protocol over a pipe (--remote-debugging-pipe: commands on its fd 3,
// answers and events on its fd 4, each a JSON message ending in a NUL
// byte), so that a test can click and type as a person does. The pages
// carry no script: the test's expressions are evaluated by DevTools, which
// the pages' Content-Security-Policy does not govern.
type tab struct {
	t       *testing.T
	ctx     context.Context
	w       *os.File
	session string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpAnswer
}

type cdpAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// openTab starts Chromium with a blank page to drive; the test's cleanup
// ends it. Every step must finish within the test's minute.
func openTab(t *testing.T, chromium string) *tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--no-first-run", "--disable-extensions", "--remote-debugging-pipe", "--window-size=1280,900", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmdR.Close()
	outW.Close()
	tb := &tab{t: t, ctx: ctx, w: cmdW, waiting: map[int]chan cdpAnswer{}}
	t.Cleanup(func() {
		cmdW.Close()
		cancel()
		cmd.Wait()
		outR.Close()
	})
	go tb.read(outR)
	var created struct {
		TargetID string `json:"targetId"`
	}
	tb.call("Target.createTarget", map[string]any{"url": "about:blank"}, &created)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	tb.call("Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached)
	tb.session = attached.SessionID
	return tb
}

// read hands each answer to the call waiting for its id; events are
// dropped (the tab polls the page instead).
func (tb *tab) read(r *os.File) {
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpAnswer
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		tb.mu.Lock()
		ch := tb.waiting[m.ID]
		delete(tb.waiting, m.ID)
		tb.mu.Unlock()
		if ch != nil {
			ch <- m.cdpAnswer
		}
	}
}

// call sends a command to the page (to the browser before the page is
// attached) and decodes its result into out (nil: ignore it).
func (tb *tab) call(method string, params any, out any) {
	tb.t.Helper()
	tb.mu.Lock()
	tb.nextID++
	id := tb.nextID
	ch := make(chan cdpAnswer, 1)
	tb.waiting[id] = ch
	tb.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if tb.session != "" {
		msg["sessionId"] = tb.session
	}
	b, _ := json.Marshal(msg)
	if _, err := tb.w.Write(append(b, 0)); err != nil {
		tb.t.Fatalf("devtools %s: %v", method, err)
	}
	select {
	case a := <-ch:
		if a.Error != nil {
			tb.t.Fatalf("devtools %s: %s", method, a.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(a.Result, out); err != nil {
				tb.t.Fatalf("devtools %s: %v", method, err)
			}
		}
	case <-tb.ctx.Done():
		tb.t.Fatalf("devtools %s: no answer: %v", method, tb.ctx.Err())
	}
}

// eval returns the value of a JavaScript expression in the page.
func (tb *tab) eval(expr string, out any) {
	tb.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	tb.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res)
	if res.ExceptionDetails != nil {
		tb.t.Fatalf("evaluate %s: %s", expr, res.ExceptionDetails.Text)
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
}

// navigate loads url and waits for the page at path.
func (tb *tab) navigate(url, path string) {
	tb.t.Helper()
	tb.call("Page.navigate", map[string]any{"url": url}, nil)
	tb.waitPath(path)
}

// waitPath waits until the loaded page's path is path (after a redirect,
// a form's submission), or fails the test when the minute runs out.
func (tb *tab) waitPath(path string) {
	tb.t.Helper()
	for {
		var at string
		tb.eval(`document.readyState === "complete" ? location.pathname : ""`, &at)
		if at == path {
			return
		}
		select {
		case <-tb.ctx.Done():
			tb.t.Fatalf("the page did not reach %s (at %q)", path, at)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// click clicks the middle of the element selector names, with the mouse
// as a person would: the element must be shown, and not under another.
func (tb *tab) click(selector string) {
	tb.t.Helper()
	var box struct{ X, Y, W, H float64 }
	tb.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return {X:0,Y:0,W:0,H:0};
		e.scrollIntoView(); const r = e.getBoundingClientRect(); return {X:r.x, Y:r.y, W:r.width, H:r.height}; })()`, selector), &box)
	if box.W == 0 || box.H == 0 {
		tb.t.Fatalf("click %s: no such element shown on the page", selector)
	}
	x, y := box.X+box.W/2, box.Y+box.H/2
	var hit bool
	tb.eval(fmt.Sprintf(`document.querySelector(%q).contains(document.elementFromPoint(%f, %f))`, selector, x, y), &hit)
	if !hit {
		tb.t.Fatalf("click %s: another element covers it", selector)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		tb.call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}, nil)
	}
}

// typeText clicks the element selector names and types text into it.
func (tb *tab) typeText(selector, text string) {
	tb.t.Helper()
	tb.click(selector)
	tb.call("Input.insertText", map[string]any{"text": text}, nil)
}

// text is the page's visible text.
func (tb *tab) text() string {
	tb.t.Helper()
	var s string
	tb.eval(`document.body ? document.body.innerText : ""`, &s)
	return s
}

// screenshot saves the page as a PNG at path.
func (tb *tab) screenshot(path string) {
	tb.t.Helper()
	var shot struct {
		Data []byte `json:"data"`
	}
	tb.call("Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}
