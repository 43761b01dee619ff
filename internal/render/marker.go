package render

import (
	"fmt"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// markerBrackets are the opening brackets read as '[': ASCII, full-width,
// and the square-bracket forms of Unicode's open punctuation (white, with
// quill, tortoise-shell and lenticular shapes, the vertical presentation
// form); and the round ones, ASCII, full-width, small, superscript,
// subscript and ornamental: "(recalled · thread t · seq 9 · …)" reads
// as the marker too (walk46). lock53 added the white, double and
// flattened parentheses (⦅, whose full-width form ｟ was left out with
// it; ⸨, ⟮), the other tortoise shells (⦗, ⟬, the ornament ❲) and the
// upper and lower pieces of the tall square bracket and parenthesis
// (⎡⎣⎛⎝), each drawn as one on a line. mark56 (walk56 F4) added the
// other bracket-like openers a model may read a marker after: the curly
// and angle brackets ("{recalled", "<recalled", ⦃ ❴ 〈 ⟨ ⟪ ⧼ ❬ ❮ ❰), the
// CJK corner and double angle brackets (「 『 《) and the guillemets (« ‹);
// their full-width and small forms (｛ ＜ ﹛) are read through baseForm.
const markerBrackets = `[［⟦〚⁅〔〘【〖﹇⦋⦍⦏⦗⟬❲⎡⎣(（﹙⁽₍❨❪⦅⸨⟮⎛⎝{⦃❴<〈⟨⟪⧼❬❮❰「『《«‹`

// invisible are the characters a text shows as nothing: format characters
// (zero-width space, joiners, soft hyphen, BOM, bidi marks) and the other
// default-ignorable code points of Unicode (combining grapheme joiner,
// Hangul fillers, Khmer inherent vowels, Mongolian and Unicode variation
// selectors), as regexp character class members.
const invisible = `\p{Cf}\x{034F}\x{115F}\x{1160}\x{17B4}\x{17B5}\x{180B}-\x{180F}\x{3164}\x{FE00}-\x{FE0F}\x{FFA0}\x{E0100}-\x{E01EF}`

// spaces are the space characters, as regexp character class members:
// RE2's \s (tab, line feed, form feed, carriage return, space), the
// vertical tab, NEL and Unicode's separators \p{Z} (no-break, en, em,
// thin, ideographic and the other spaces; the line and paragraph
// separators). A reader takes each for a space: "[\u00a0recalled" and
// "[\u3000recalled" read as "[ recalled".
const spaces = `\s\x{0B}\x{85}\p{Z}`

// marks are the combining marks, \p{M}, as regexp character class
// members: an accent on a letter ("r\u0301" reads "ŕ", taken for "r") or
// on the bracket.
const marks = `\p{M}`

// blank are the characters allowed between the bracket and the word, as
// regexp character class members: spaces, invisible characters and marks.
const blank = spaces + invisible + marks

// between are the characters allowed between the letters of the word, as
// regexp character class members: invisible characters and marks.
const between = invisible + marks

// markerShape is marker-shaped text, as sets of characters: an opening
// square or round bracket ('[', '(' or a look-alike: markerBracketClass),
// any blank characters (markerBlankClass), then "recalled" in any case, each letter one a
// reader takes for it (markerLetterClasses: ASCII, full-width,
// mathematical, script or Roman-numeral forms, letters with accents, and
// UTS #39 confusables of other scripts: "[rеcalled" with a Cyrillic е,
// "[recαlled" with a Greek α, "[recaIIed", "[ŕécalled"), with any
// invisible characters or combining marks between the letters. It is what
// a reader sees once the text is normalised: spaces read as a space,
// invisible characters and combining marks dropped, each character taken
// for its compatibility decomposition (NFKD) or the letter it is confused
// with, or, for a character read as several ("㎈" is "cal", "Ⅱ" "II"),
// as those. A model reads "[re\u200bcalled" (a zero-width space inside the
// word), "[\u00a0recalled", "[r\u0301ecalled" or "[rеcalled" as the
// word, and each passed unquoted before. Its sets are disjoint (no
// bracket, blank or letter of one set is in another set used at the same
// place), so the first way text can match is the only one.
type markerShape struct {
	brackets, blank, between runeSet
	letters                  []runeSet       // one per letter of MarkerWord
	spelled                  map[rune]string // characters read as several (spelledForms): "㎈" "cal"
}

// markerShapes is the markerShape, built on first use (Message), as
// building it reads some 20,000 characters' decompositions.
var markerShapes = sync.OnceValue(func() *markerShape {
	classes := markerLetterClasses()
	m := &markerShape{
		brackets: classSet(markerBracketClass()),
		blank:    classSet(markerBlankClass()),
		between:  classSet(between),
		spelled:  spelledForms(),
	}
	for _, r := range MarkerWord {
		m.letters = append(m.letters, classSet(classes[r]))
	}
	return m
})

// quote quotes marker-shaped text in s (markerShape): "[recalled" becomes
// "[quoted: recalled". It runs before any escaping, on the text as stored,
// so that the invisible characters the shape looks through are still
// there. It returns s itself when s holds no marker-shaped text.
func quote(s string) string {
	m := markerShapes()
	var b strings.Builder
	done := 0 // s[:done] is written to b
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && c != '[' && c != '(' && c != '{' && c != '<' {
			i++ // the ASCII brackets are '[', '(', '{' and '<'
			continue
		}
		r, n := nextRune(s, i)
		if !m.brackets.has(r) {
			i += n
			continue
		}
		end, ok := m.matchAfter(s, i+n)
		if !ok {
			i += n
			continue
		}
		b.WriteString(s[done : i+n])
		b.WriteString(QuotedPrefix)
		done, i = i+n, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// matchAfter reports whether s[i:], the text after an opening bracket,
// is the rest of marker-shaped text, and where that text ends: after the
// character that holds the word's last letter. A character read as several
// (spelled: "㎈" is "cal") is taken as those, one by one; the word may end
// inside it ("[recalle㏈" reads "[recalledB").
func (m *markerShape) matchAfter(s string, i int) (end int, ok bool) {
	k := 0 // the letters of the word read so far
	for i < len(s) {
		r, n := nextRune(s, i)
		i += n
		if next, ok := m.step(k, r); ok {
			k = next
		} else if k, ok = m.stepSpelled(k, m.spelled[r]); !ok {
			return 0, false
		}
		if k == len(m.letters) {
			return i, true
		}
	}
	return 0, false
}

// stepSpelled reads the characters of sp, a character's spelledForm
// (none: ok is false), after k letters of the word, as step does, up to
// the word's last letter.
func (m *markerShape) stepSpelled(k int, sp string) (next int, ok bool) {
	if sp == "" {
		return 0, false
	}
	for _, c := range sp {
		if k, ok = m.step(k, c); !ok || k == len(m.letters) {
			return k, ok
		}
	}
	return k, true
}

// step reads the character r after k letters of the word: before the first,
// a blank character leaves k as it is; between two, a character of between
// does; the next letter makes it k+1. ok is false for any other character.
func (m *markerShape) step(k int, r rune) (next int, ok bool) {
	switch {
	case m.letters[k].has(r):
		return k + 1, true
	case k == 0 && m.blank.has(r), k > 0 && m.between.has(r):
		return k, true
	}
	return 0, false
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

// classSet parses regexp character class members (the inside of [...]) as
// the regexp package does.
func classSet(members string) runeSet {
	re, err := syntax.Parse("["+members+"]", syntax.Perl)
	if err != nil {
		panic(fmt.Sprintf("render: character class %q: %v", members, err))
	}
	switch {
	case re.Op == syntax.OpCharClass:
		return runeSet(re.Rune)
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1:
		return runeSet{re.Rune[0], re.Rune[0]}
	}
	panic(fmt.Sprintf("render: character class %q parsed as %v", members, re.Op))
}

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
