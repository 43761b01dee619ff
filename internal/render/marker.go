package render

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// markerShape is marker-shaped text, as sets of characters: an opener
// (an opening square, round, curly or angle bracket, a guillemet or a
// look-alike: markerBracketClass; the same written as an HTML character
// reference, a backslash escape or percent-encoded, "&#91;", "\u005b",
// "\133", "%5B": escapedAt; or,
// for the phrases that end in mnemo's separators, a vertical bar:
// markerBars), then one of the phrases of mnemo's markers (phrases):
// above all any blank characters (markerBlankClass) and "recalled" in any
// case, each letter one a reader takes for it (letterClasses: ASCII,
// full-width, mathematical, script or Roman-numeral forms, letters with
// accents, and UTS #39 confusables of other scripts: "[rеcalled" with a
// Cyrillic е, "[recαlled" with a Greek α, "[recaIIed", "[ŕécalled"),
// with any invisible characters, combining marks, spaces, dashes, dots or
// underscores between the letters ("[r e c a l l e d", "[re-called"). It
// is what a reader sees once the text is normalised: spaces read as a
// space, invisible characters and combining marks dropped, each character
// taken for its compatibility decomposition (NFKD) or the letter it is
// confused with, or, for a character read as several ("㎈" is "cal", "Ⅱ"
// "II"), as those. Consecutive sets of a phrase are disjoint (or, for a
// phrase's tail, every character of the set after it that both hold may
// be read by either), so the first way text can match is the only one.
// Its sets are markerSets'.
type markerShape struct {
	brackets, bars runeSet
	spelled        []spelledRune // characters read as several (spelledForms), in order: "㎈" "cal"
	phrases        []phrase
}

// spelledAs is what r is read as when that is several characters ("㎈":
// "cal", spelled), and whether it is. No ASCII character is (spelled
// holds characters of compatRanges, from U+00A0 on).
func (m *markerShape) spelledAs(r rune) (string, bool) {
	if r < utf8.RuneSelf {
		return "", false
	}
	lo, hi := 0, len(m.spelled)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.spelled[mid].r < r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(m.spelled) && m.spelled[lo].r == r {
		return m.spelled[lo].form, true
	}
	return "", false
}

// quote quotes marker-shaped text in s (markerShape): "[recalled" becomes
// "[quoted: recalled", "&#91;recall · thread" "&#91;quoted: recall ·
// thread", "| recalled · thread" "| quoted: recalled · thread":
// QuotedPrefix goes before the phrase's first word, after the opener and
// any blank characters. It runs before any escaping, on the text as
// stored, so that the invisible characters the shape looks through are
// still there. It returns s itself when s holds no marker-shaped text.
func quote(s string) string {
	m := markerShapes()
	var b strings.Builder
	done := 0 // s[:done] is written to b
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && !asciiOpenerStart[c] {
			i++
			continue
		}
		n, bar, ok := m.openerAt(s, i)
		if !ok {
			_, w := nextRune(s, i)
			i += w
			continue
		}
		at, end, ok := m.matchAfter(s, i+n, bar)
		if !ok {
			_, w := nextRune(s, i)
			i += w
			continue
		}
		b.WriteString(s[done:at])
		b.WriteString(QuotedPrefix)
		done, i = at, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// asciiOpenerStart are the ASCII characters an opener may begin with: the
// brackets '[', '(', '{', '<', the bar '|', and the '&', '\' and '%' of
// an escape.
var asciiOpenerStart = [utf8.RuneSelf]bool{'[': true, '(': true, '{': true, '<': true, '|': true, '&': true, '\\': true, '%': true}

// phraseStart are the ASCII characters a phrase may begin with: the
// blank ones (\s and the vertical tab) and the first letters of its
// words, 'r' and 'u' in either case. No ASCII character is read as
// several (spelledForms) or is another letter's look-alike of these.
var phraseStart = [utf8.RuneSelf]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	'r': true, 'R': true, 'u': true, 'U': true}

// openerAt reports whether an opener begins at s[i], its length n in
// bytes, and whether it is a bar (only the phrases with bars count after
// it).
func (m *markerShape) openerAt(s string, i int) (n int, bar, ok bool) {
	r, n := escapedAt(s, i)
	if n == 0 {
		r, n = nextRune(s, i)
	}
	switch {
	case m.brackets.has(r):
		return n, false, true
	case m.bars.has(r):
		return n, true, true
	}
	return 0, false, false
}

// matchAfter reports whether s[i:], the text after an opener, is the
// rest of marker-shaped text (the first of m.phrases that matches; after
// a bar, only a phrase with bars), where its first word begins (at, after
// the blank characters) and where that text ends (end): after the
// character that holds the phrase's last character, or before the
// character an alone piece allowed. A character read as several
// (spelled: "㎈" is "cal") is taken as those, one by one; the phrase may
// end inside it ("[recalle㏈" reads "[recalledB").
func (m *markerShape) matchAfter(s string, i int, bar bool) (at, end int, ok bool) {
	if i == len(s) || s[i] < utf8.RuneSelf && !phraseStart[s[i]] {
		return 0, 0, false // the common case, "f(x)", "a[i]", read once
	}
	for k := range m.phrases {
		p := &m.phrases[k]
		if bar && !p.bars {
			continue
		}
		if at, end, ok := m.match(p, s, i); ok {
			return at, end, true
		}
	}
	return 0, 0, false
}

// match reports whether phrase p matches at s[i:], where its first word
// begins and where it ends (matchAfter).
func (m *markerShape) match(p *phrase, s string, i int) (at, end int, ok bool) {
	var st matchState
	at = i
	for i < len(s) {
		r, n := nextRune(s, i)
		sp, several := m.spelledAs(r)
		if !several {
			sp = string(r)
		}
		for _, c := range sp {
			if !p.step(&st, c) {
				return 0, 0, false
			}
			switch {
			case st.done:
				return at, i, true
			case st.piece == len(p.pieces):
				return at, i + n, true
			}
		}
		i += n
		if st.piece == 0 {
			at = i
		}
	}
	if p.endsAt(st) {
		return at, len(s), true
	}
	return 0, 0, false
}

// nextRune decodes the character at s[i:] as a regexp reads it: an invalid
// byte is utf8.RuneError, one byte long.
func nextRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// runeSet is a set of characters as regexp/syntax writes a character
// class: sorted, disjoint, inclusive lo, hi pairs.
type runeSet []rune

// has reports whether r is in the set.
func (rs runeSet) has(r rune) bool {
	n := len(rs) / 2
	i := sort.Search(n, func(i int) bool { return rs[2*i+1] >= r })
	return i < n && rs[2*i] <= r
}

// skip returns the index of the first character at or after s[i:] that is
// not in the set (len(s) if there is none).
func (rs runeSet) skip(s string, i int) int {
	for i < len(s) {
		r, n := nextRune(s, i)
		if !rs.has(r) {
			return i
		}
		i += n
	}
	return i
}
