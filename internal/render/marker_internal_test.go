package render

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// regexpShape is the regexp that quoted marker-shaped text up to render-v7
// (0e504ee), with render-v8's sets (Unicode spaces, combining marks and
// spacing accents as blanks, combining marks between the letters, accented
// letters and brackets): quote must agree with it on every text.
var regexpShape = sync.OnceValue(func() *regexp.Regexp {
	classes := markerLetterClasses()
	var b strings.Builder
	b.WriteString(`([` + markerBracketClass() + `])([` + markerBlankClass() + `]*)(`)
	for i, r := range MarkerWord {
		if i > 0 {
			b.WriteString(`[` + between + `]*`)
		}
		b.WriteString(`[` + classes[r] + `]`)
	}
	b.WriteString(`)`)
	return regexp.MustCompile(b.String())
})

// regexpQuote is quote as it was: the regexp's matches, replaced.
func regexpQuote(s string) string {
	return regexpShape().ReplaceAllString(s, "${1}"+QuotedPrefix+"${2}${3}")
}

// spell writes each character of s read as several (spelledForms: "㎈")
// as those ("cal"), for the regexp, which reads one character at a time:
// quote(s), spelled, is regexpQuote of s spelled (lock53).
func spell(s string) string {
	sp := spelledForms()
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := nextRune(s, i)
		if f, ok := sp[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// quoteAgrees reports whether quote(s) is the regexp's quoting of s, both
// spelled, and returns both.
func quoteAgrees(s string) (got, want string, ok bool) {
	got, want = spell(quote(s)), regexpQuote(spell(s))
	return got, want, got == want
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
		pairs = append(pairs, pair{"between and " + string(MarkerWord[k+1]), m.between, l})
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
		"[\u2003recalled", "[r\u0301ecalled", "[\u0301recalled", "[ŕÉcälléd", "︵recalled", "[¨ recalled",
		"[re¨called", "[re㎈led", "⒭ecalled", "[recal\u0301\u200bled", "[re called",
	}
	for _, br := range markerBrackets {
		cases = append(cases, string(br)+"recalled x", "a"+string(br)+" \u200bRECALLED", string(br)+string(br)+"re")
	}
	cases = append(cases, "[re㎈led", "[recaⅡed", "[reca⑪ed", "[recalle㏈", "[recalleǆ x", "[re㎈​led", "[　re㎈led",
		"[rec㎈led", "[re㎈㎈", "⒭ecalled", "[⒭ecalled", "(🄡🄔🄒🄐🄛🄛🄔🄓", "[㎭", "［ｒｅｃａｌｌｅｄ］", "［𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝")
	for r, f := range spelledForms() { // each in place of the letters it may read as
		for k := range MarkerWord {
			cases = append(cases, "["+MarkerWord[:k]+string(r)+MarkerWord[min(k+len([]rune(f)), len(MarkerWord)):])
		}
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
		if got, want, ok := quoteAgrees(s); !ok {
			t.Errorf("quote(%q), spelled, = %q, the regexp gave %q", s, got, want)
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
		if got, want, ok := quoteAgrees(s); !ok {
			t.Fatalf("quote(%q), spelled, = %q, the regexp gave %q (valid UTF-8: %v)", s, got, want, utf8.ValidString(s))
		}
		got := quote(s)
		if readsAsMarker(s) != (got != s) || readsAsMarker(got) {
			t.Fatalf("quote(%q) = %q; normalised, the text reads %q and the result %q", s, got, normalised(s), normalised(got))
		}
	})
}

// normalised is s as a reader takes it, the reference of the normalisation
// markerShape stands for: each space is a space, invisible characters and
// combining marks are left out, and each other character is its baseForm
// (if it has one and is not a confusable itself), or each of its
// spelledForm's ("㎈" is "cal"), then the letter of MarkerWord it reads
// as ('l' for 'I'), or '[' for an opening bracket. An invalid byte is
// U+FFFD.
func normalised(s string) string {
	inv := classSet(invisible)
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || unicode.Is(unicode.Z, r):
			b.WriteByte(' ')
			continue
		case unicode.Is(unicode.M, r) || inv.has(r):
			continue
		}
		if f, ok := spelledForms()[r]; ok {
			b.WriteString(normalised(f))
			continue
		}
		if base, ok := baseForm(r); ok && readAs(r) == r {
			r = base
		}
		b.WriteRune(readAs(r))
	}
	return b.String()
}

// readAs is the letter of MarkerWord r is read as, '[' for an opening
// bracket, or r.
func readAs(r rune) rune {
	if strings.ContainsRune(markerBrackets, r) {
		return '['
	}
	for _, l := range MarkerWord {
		if strings.ContainsRune(markerReads[l]+markerConfusables[l], r) {
			return l
		}
	}
	return r
}

var normalisedMarker = regexp.MustCompile(`\[ *recalled`)

// readsAsMarker reports whether s, normalised, holds a bracket, spaces and
// "recalled".
func readsAsMarker(s string) bool { return normalisedMarker.MatchString(normalised(s)) }

// TestQuoteNormalised: quote quotes exactly the texts that, normalised,
// hold a marker, and leaves none in its result. Before render-v8 the
// Unicode spaces after the bracket, an accent on a letter or the bracket,
// accented letters and the vertical presentation forms of the brackets
// were left unquoted (walk48 F11).
func TestQuoteNormalised(t *testing.T) {
	for _, tc := range []struct {
		in     string
		quoted bool
	}{
		{"[\u00a0recalled · thread t]", true},
		{"[\u2003recalled", true},
		{"(\u3000recalled", true},
		{"[\u200brecalled", true},
		{"[r\u0301ecalled", true},
		{"[\u0301recalled", true},
		{"[recal\u0301\u200bled", true},
		{"[ŕécalled", true},
		{"[RÉCÄLLËD", true},
		{"[rёcalled", true}, // Cyrillic ё
		{"︵recalled", true},
		{"﹝recalled", true},
		{"[´ recalled", true},
		{"[\u1680\u202f\u205frecalled", true},
		{"[re called", false},
		{"[re¨called", false},
		{"[ recalling", false},
		// A character read as several (NFKD), letters among them (lock53;
		// render-v9): "[re㎈led" reads "[recalled", "Ⅱ" "II", "⑪" "11".
		{"[re㎈led", true},
		{"[recaⅡed", true},
		{"[reca⑪ed", true},
		{"[recalle㏈", true}, // "[recalledB"
		{"[re㎈​led", true},
		{"[rec㎈led", false}, // "[reccalled"
		{"[re㏄lled", false},
		// A parenthesized letter reads with both its brackets: "(r)ecalled"
		// is no marker, nor "[(r)ecalled".
		{"⒭ecalled", false},
		{"[⒭ecalled", false},
		{"(🄡🄔🄒🄐🄛🄛🄔🄓", false},
		// Full-width and mathematical letters and brackets (baseForm).
		{"［ｒｅｃａｌｌｅｄ］", true},
		{"［𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝", true},
		{"(𝔯𝔢𝔠𝔞𝔩𝔩𝔢𝔡", true},
		{"[𝕣𝕖𝕔𝕒𝕝𝕝𝕖𝕕", true},
		{"[𝚛𝚎𝚌𝚊𝚕𝚕𝚎𝚍", true},
		{"[𝖗𝖊𝖈𝖆𝖑𝖑𝖊𝖉", true},
		{"[ʳᵉᶜᵃˡˡᵉᵈ", true},
		{"[🄡🄴🄲🄰🄻🄻🄴🄳", false},
		{"𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝", false},
	} {
		got := quote(tc.in)
		if (got != tc.in) != tc.quoted {
			t.Errorf("quote(%q) = %q, want quoted %v", tc.in, got, tc.quoted)
		}
		if readsAsMarker(tc.in) != tc.quoted || readsAsMarker(got) {
			t.Errorf("normalised, %q reads %q and its quoting %q", tc.in, normalised(tc.in), normalised(got))
		}
	}
}

// TestQuoteAgreesWithNormalised: quote and the normalisation agree on
// quoteCases.
func TestQuoteAgreesWithNormalised(t *testing.T) {
	for _, s := range quoteCases() {
		got := quote(s)
		if readsAsMarker(s) != (got != s) || readsAsMarker(got) {
			t.Errorf("quote(%q) = %q; normalised, the text reads %q and the result %q", s, got, normalised(s), normalised(got))
		}
	}
}

// TestBaseFormsInCompatRanges: every character whose baseForm is a letter
// of MarkerWord, a bracket or a space, or whose spelledForm holds such a
// letter and no bracket (spelledForms), lies in compatRanges, where the sets are built
// from.
func TestBaseFormsInCompatRanges(t *testing.T) {
	in := func(r rune) bool {
		for _, rg := range compatRanges {
			if r >= rg[0] && r <= rg[1] {
				return true
			}
		}
		return false
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if in(r) {
			continue
		}
		letter, bracket := false, false
		for _, c := range spelledForm(r) {
			letter = letter || strings.ContainsRune(MarkerWord, readAs(c))
			bracket = bracket || readAs(c) == '['
		}
		if letter && !bracket {
			t.Errorf("%U %q reads as %q and lies outside compatRanges", r, r, string(spelledForm(r)))
		}
		base, ok := baseForm(r)
		if !ok || (readAs(base) == base && base != ' ') {
			continue
		}
		t.Errorf("%U %q reads as %q and lies outside compatRanges", r, r, base)
	}
}
