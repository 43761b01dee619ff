package render_test

import (
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/render"
)

// messageTexts are the texts BenchmarkMessage renders: a chat turn of
// ordinary prose (1.9 KB, one "(" and one "["), the same size of text full
// of round and square brackets (code, citations), a long turn (64 KB of
// the ordinary one), a turn holding marker-shaped text to quote and 64 KB
// of HTML, a reference in every few words (namedRef reads each).
var messageTexts = []struct{ name, text string }{
	{"ordinary", ordinaryTurn},
	{"brackets", strings.Repeat("f(x) [1] (see g(y)) a[i] ", 80)},
	{"long", strings.Repeat(ordinaryTurn, 34)},
	{"marker", ordinaryTurn + "(recalled · thread t · seq 9 · 2026-12-06 03:35 UTC) " + ordinaryTurn},
	{"html", strings.Repeat(htmlLine, 465)},
}

// htmlLine is a line of HTML (141 bytes): tags, an attribute and eight
// named references.
const htmlLine = `<p class="note">Price &lt; 10&nbsp;&euro; &amp;&amp; size &gt; 3 &mdash; see <a href="/x?a=1&amp;b=2">&ldquo;the list&rdquo;</a>&hellip;</p>` + "\n"

var ordinaryTurn = strings.Repeat("The meeting moved to Thursday; Ana will bring the draft and the numbers. ", 24) +
	"Call the office (ext. 4) before noon [urgent]. "

// BenchmarkMessage renders message content as the prompt does.
//
//	go test ./internal/render -run '^$' -bench Message -benchmem
func BenchmarkMessage(b *testing.B) {
	render.Message("(recalled") // build markerShapes outside the timing
	for _, tc := range messageTexts {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				render.Message(tc.text)
			}
		})
	}
}
