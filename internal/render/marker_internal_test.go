package render

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// regexpShape is the regexp that quoted marker-shaped text up to render-v7
// (0e504ee): quote must agree with it on every text.
var regexpShape = sync.OnceValue(func() *regexp.Regexp {
	classes := markerLetterClasses()
	var b strings.Builder
	b.WriteString(`([` + strings.ReplaceAll(markerBrackets, "[", `\[`) + `])([\s` + invisible + `]*)(`)
	for i, r := range MarkerWord {
		if i > 0 {
			b.WriteString(`[` + invisible + `]*`)
		}
		b.WriteString(`[` + classes[r] + `]`)
	}
	b.WriteString(`)`)
	return regexp.MustCompile(b.String())
})

// regexpQuote is quote as it was: the regexp's matches, replaced.
func regexpQuote(s string) string {
	if !strings.ContainsAny(s, markerBrackets) {
		return s
	}
	return regexpShape().ReplaceAllString(s, "${1}"+QuotedPrefix+"${2}${3}")
}

// TestMarkerSetsDisjoint: the characters skipped before a letter of the
// word (blank, invisible) are never that letter, so quote, which skips
// them all before it looks for the letter, finds what the regexp finds.
func TestMarkerSetsDisjoint(t *testing.T) {
	m := markerShapes()
	overlap := func(a, b runeSet) (rune, bool) {
		for i := 0; i < len(a); i += 2 {
			for r := a[i]; r <= a[i+1]; r++ {
				if b.has(r) {
					return r, true
				}
			}
		}
		return 0, false
	}
	type pair struct {
		name string
		a, b runeSet
	}
	pairs := []pair{{"blank and r", m.blank, m.letters[0]}}
	for k, l := range m.letters[1:] {
		pairs = append(pairs, pair{"invisible and " + string(MarkerWord[k+1]), m.invisible, l})
	}
	for _, p := range pairs {
		if r, ok := overlap(p.a, p.b); ok {
			t.Errorf("%s share %U", p.name, r)
		}
	}
}

// quoteCases are texts quote and the regexp must agree on: each bracket,
// each reading of each letter, blanks and invisible characters where they
// may and may not be, cut words, invalid bytes.
func quoteCases() []string {
	cases := []string{
		"", "(", "[", "(recalled", "[[recalled", "((recalled)(recalled)",
		"[recalled[recalled", "[recalledrecalled", "[ \t\n\r\f\u200brecalled", "[re\u200bca\u00adlled",
		"[re called", "[r\u034fe\u180bc\ufe0fa\U000e0100lled", "[\xffrecalled", "[rec\xffalled", "\xff[recalled",
		"[recalle", "(recalle\xe2\x80", "f(x) [1] (called) (uncalled)", "(\u3000recalled", "(\u00a0recalled",
	}
	for _, br := range markerBrackets {
		cases = append(cases, string(br)+"recalled x", "a"+string(br)+" \u200bRECALLED", string(br)+string(br)+"re")
	}
	m := markerShapes()
	for k, l := range m.letters {
		for i := 0; i < len(l); i += 2 {
			for _, r := range []rune{l[i], l[i+1]} {
				word := []rune(MarkerWord)
				word[k] = r
				cases = append(cases, "("+string(word)+")", "["+string(word[:k+1]))
			}
		}
	}
	return cases
}

// TestQuoteAgreesWithRegexp: quote gives what the regexp quoting gave.
func TestQuoteAgreesWithRegexp(t *testing.T) {
	for _, s := range quoteCases() {
		if got, want := quote(s), regexpQuote(s); got != want {
			t.Errorf("quote(%q) = %q, the regexp gave %q", s, got, want)
		}
	}
}

// FuzzQuote: quote and the regexp quoting agree on any text.
//
//	go test ./internal/render -run '^$' -fuzz FuzzQuote -fuzztime 1m
func FuzzQuote(f *testing.F) {
	for _, s := range quoteCases() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := quote(s), regexpQuote(s); got != want {
			t.Fatalf("quote(%q) = %q, the regexp gave %q (valid UTF-8: %v)", s, got, want, utf8.ValidString(s))
		}
	})
}
