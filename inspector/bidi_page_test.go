package inspector_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestBidiMarkersServed is TestBrowserBidi's markers without a browser:
// the thread page as served shows each bidirectional control (a mark
// among them), tag character, line separator and paragraph separator of
// its stored text as a marker naming it, and holds none of them raw. It runs where Chromium is absent.
func TestBidiMarkersServed(t *testing.T) {
	ts := seedBidi(t)
	resp, err := http.Get(ts.URL + "/ui/threads/hostile-1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d:\n%s", resp.StatusCode, b)
	}
	page := string(b)
	for _, want := range []string{
		`invoice_<span class="cp bidi" title="U&#43;202E RIGHT-TO-LEFT OVERRIDE">[U&#43;202E]</span>fdp.exe`,
		`line<span class="cp fmt" title="U&#43;2028 LINE SEPARATOR">[U&#43;2028]</span>break<span class="cp fmt" title="U&#43;2029 PARAGRAPH SEPARATOR">[U&#43;2029]</span>end`,
		`dates <span class="cp bidi" title="U&#43;061C ARABIC LETTER MARK">[U&#43;061C]</span>1999-2024`,
		`<span class="cp fmt" title="U&#43;E006F TAG CHARACTER &#39;o&#39;">[U&#43;E006F]</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the thread page lacks %s", want)
		}
	}
	for _, r := range []rune{0x2028, 0x2029, 0x202e, 0x2067, 0x061c, 0xe006f} {
		if strings.ContainsRune(page, r) {
			t.Errorf("the thread page holds U+%04X raw", r)
		}
	}
}

// TestBidiNoteOnlyWhenMarked: the note on markers is in the HTML of a
// page that shows a marker and of no other (walk40 #5: it was in every
// page's HTML, hidden only by CSS :has(), so a reader without CSS, w3m
// or html2text, saw the warning on every page).
func TestBidiNoteOnlyWhenMarked(t *testing.T) {
	ts := seedBidi(t)
	for path, want := range map[string]bool{
		"/ui/threads/hostile-1": true,  // markers in messages and the title
		"/ui/runs/run-rlo":      true,  // a marker in the query
		"/ui/":                  true,  // the thread list shows hostile-1's title
		"/ui/threads/clean-1":   false, // plain text only
		"/ui/threads/nowhere":   false, // the error page
	} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		if got := strings.Contains(page, `id="bidi-note"`); got != want {
			t.Errorf("%s (status %d): holds the note: %v, want %v", path, resp.StatusCode, got, want)
		}
		if marked := strings.Contains(page, `<span class="cp `); marked != want {
			t.Errorf("%s: shows a marker: %v, want %v (the case is wrong)", path, marked, want)
		}
	}
}
