package render

import (
	"cmp"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// This file defines the sets of markerSets and builds them from Unicode's
// data (reference.sets), as render built them in every process before
// fu73: tables.go is these sets written out (TestMarkerTables -update, go
// generate), and TestMarkerTables checks that it still is. A change of a
// definition here is made by generating the tables again.

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

// markerBars are the vertical bars a marker may open after, as regexp
// character class members: ASCII, broken, box-drawing, the divides sign
// and the light vertical ornament; their full-width and half-width forms
// (｜, ￨) are read through baseForm. A bar opens a table cell as often as
// anything, so after a bar only the marker phrases that end in mnemo's
// own separators count (phrase.bars): "|recalled · thread t1 · seq 2 …"
// is quoted, the markdown cell "| recalled |" is not.
const markerBars = `|¦│┃∣❘`

// markerDots are mnemo's separator in a marker, the middle dot, and what a
// reader takes for it (bullet, bullet operator, dot operator, katakana
// middle dot, hyphenation point, word separator middle dot, Latin
// sinological dot), as regexp character class members; their
// compatibility forms (the Greek ano teleia, the half-width katakana
// middle dot) are read through baseForm.
const markerDots = `·•∙⋅・‧⸱ꞏ`

// markerColons are the colon, read as a separator before threadWord as
// mnemo's dot is ("[recall: thread t1 · seq 2"), as regexp character
// class members; the full-width and small forms through baseForm.
const markerColons = `:`

// markerDashes are the characters read as a break inside a word, as
// regexp character class members, with the spaces, the full stops
// (markerStops) and invisible characters: dashes and hyphens (\p{Pd}), the
// minus sign and the underscore ("[re-called", "[re_called").
const markerDashes = `\p{Pd}\x{2212}_`

// markerStops are the full stops read as a break inside a word
// ("[r.e.c.a.l.l.e.d"), unless a space follows one: "(re. called)" is an
// abbreviation and a word, not the marker's word spelled apart.
const markerStops = `.`

// markerReads are, for each letter of MarkerWord, the ASCII characters a
// reader takes for it: the letter in both cases, and for 'l' the digit
// one, capital I and the vertical bar, which UTS #39's confusables list
// maps to it ("[recaIIed", "[reca11ed").
var markerReads = map[rune]string{
	'r': "rR", 'e': "eE", 'c': "cC", 'a': "aA", 'l': "lL1I|", 'd': "dD",
}

// markerConfusables are, for each letter of MarkerWord, the letters of
// other scripts taken for it that no compatibility decomposition maps to
// it: UTS #39 confusables (Cyrillic, Greek, Coptic, Cherokee, Lisu,
// Canadian syllabics, Hebrew and Arabic letters), lower and upper case,
// and the small capitals.
var markerConfusables = map[rune]string{
	'r': "гᴦⲅʀᎡƦᖇ",
	'e': "еЕΕҽ℮ᴇᎬ",
	'c': "сСϲϹᴄⲥꮯᏟ",
	'a': "аАΑαɑ⍺ᴀᎪ",
	'l': "ӏӀǀΙⲒⵏוןا׀ʟᏞᒪ",
	'd': "ԁꓒᑯᴅᏧᎠᗞ",
}

// compatRanges are where the characters whose compatibility decomposition
// (NFKD), combining marks left out, is one letter or bracket live: Latin-1
// to Enclosed Alphanumerics (ª, à, ŕ, ё, the modifier and superscript
// letters, ℯ, ℓ, the Roman numerals ⅼ ⅽ ⅾ, the circled letters), the
// modifier capitals of Latin Extended-D (ꟲ), the CJK compatibility and
// vertical forms (︵, ︹), the Hebrew and Arabic
// presentation forms, the full-width forms, Latin Extended-F, the
// Mathematical Alphanumeric Symbols (𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝), Cyrillic Extended-D, the
// Arabic Mathematical Alphabetic Symbols, the enclosed and squared letters
// and the segmented digits; and those whose decomposition is several
// characters, a letter among them (㎈, Ⅱ, ⑪: spelledForms).
// TestBaseFormsInCompatRanges checks that no other character has such a
// decomposition.
var compatRanges = [][2]rune{
	{0x00A0, 0x33FF}, {0xA7F0, 0xA7FF}, {0xFB00, 0xFFEF}, {0x10780, 0x107BF}, {0x1D400, 0x1D7FF},
	{0x1E030, 0x1E08F}, {0x1EE00, 0x1EEFF}, {0x1F100, 0x1F1FF}, {0x1FBF0, 0x1FBF9},
}

// baseForm is the one character a reader takes r for once its
// compatibility form and accents are set aside: its NFKD decomposition
// with the combining marks (\p{M}) left out ("ŕ" is "r", "ｒ" "r", "ё"
// the Cyrillic "е", "︵" "("). ok is false when that is not one
// character, or is r itself.
func baseForm(r rune) (base rune, ok bool) {
	var buf [utf8.UTFMax]byte
	d := norm.NFKD.Properties(buf[:utf8.EncodeRune(buf[:], r)]).Decomposition()
	if d == nil {
		return 0, false // its own decomposition (or a Hangul syllable's jamo)
	}
	base, size := utf8.DecodeRune(d)
	for _, m := range string(d[size:]) {
		if !unicode.Is(unicode.M, m) {
			return 0, false
		}
	}
	return base, base != r
}

// spelledForm is the characters a reader takes r for when they are more
// than one: its NFKD decomposition with the combining marks (\p{M}) left
// out ("㎈" is "cal", "Ⅱ" "II", "⑪" "11", "⒭" "(r)"); nil when that is
// one character or none (baseForm).
func spelledForm(r rune) []rune {
	var buf [utf8.UTFMax]byte
	d := norm.NFKD.Properties(buf[:utf8.EncodeRune(buf[:], r)]).Decomposition()
	var out []rune
	for _, c := range string(d) {
		if !unicode.Is(unicode.M, c) {
			out = append(out, c)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// spelledForms are the characters of compatRanges whose spelledForm holds
// no opening bracket (markerBrackets, or a character whose baseForm is
// one), with that form: a character read as several, some of them
// letters of MarkerWord ("[re㎈led" reads "[recalled", "[recaⅡed"
// "[recaIIed"). One holding a bracket is a parenthesized letter or number
// ("⒭" is "(r)"), whose closing bracket breaks any word it would begin:
// "⒭ecalled" reads "(r)ecalled", not a marker.
func (ref *reference) spelledForms() map[rune]string {
	brackets := classSet(ref.markerBracketClass() + ref.markerBarClass())
	out := map[rune]string{}
	for _, rg := range compatRanges {
	next:
		for r := rg[0]; r <= rg[1]; r++ {
			sp := spelledForm(r)
			for _, c := range sp {
				if brackets.has(c) {
					continue next
				}
			}
			if sp != nil {
				out[r] = string(sp)
			}
		}
	}
	return out
}

// letterReads are the ASCII and confusable characters a reader takes for
// the letter l of a phrase's word: markerReads and markerConfusables for
// the letters of MarkerWord, the letter in both cases for the others.
func letterReads(l rune) string {
	if r, ok := markerReads[l]; ok {
		return r + markerConfusables[l]
	}
	return string(l) + strings.ToUpper(string(l))
}

// letterClasses are, for each letter of the phrases' words (MarkerWord,
// stemWord, untrustedWord, toolWord), the members of a regexp character
// class matching every character read as it: letterReads, and each
// character whose baseForm is one of those (the full-width,
// mathematical, script and circled forms, "ⅼ", "Ⅰ", and the letters
// with accents, "ŕ", "é", "ë").
func (ref *reference) letterClasses() map[rune]string {
	reads := map[rune]string{}
	classes := map[rune]*strings.Builder{}
	for _, l := range phraseLetters {
		reads[l] = letterReads(l)
		classes[l] = &strings.Builder{}
		for _, r := range reads[l] {
			classes[l].WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	ref.forEachBaseForm(func(r, base rune) {
		for l, rs := range reads {
			if strings.ContainsRune(rs, base) && !strings.ContainsRune(rs, r) {
				classes[l].WriteString(regexp.QuoteMeta(string(r)))
			}
		}
	})
	out := make(map[rune]string, len(classes))
	for l, b := range classes {
		out[l] = b.String()
	}
	return out
}

// withForms is the members of a regexp character class matching each
// character of chars and each character whose baseForm is one of them
// (for the brackets "︵", "﹝", "︻"; "｜" for '|'; "･" for '・').
func (ref *reference) withForms(chars string) string {
	var b strings.Builder
	b.WriteString(regexp.QuoteMeta(chars))
	ref.forEachBaseForm(func(r, base rune) {
		if strings.ContainsRune(chars, base) && !strings.ContainsRune(chars, r) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	})
	return b.String()
}

// markerBracketClass is the members of a regexp character class matching
// every opening bracket: markerBrackets withForms.
func (ref *reference) markerBracketClass() string { return ref.withForms(markerBrackets) }

// markerBarClass is the members of a regexp character class matching
// every vertical bar an opener may be: markerBars withForms.
func (ref *reference) markerBarClass() string { return ref.withForms(markerBars) }

// markerBlankClass is the members of a regexp character class matching
// every character allowed between the bracket and the word: spaceClass,
// invisible characters and marks.
func (ref *reference) markerBlankClass() string { return ref.spaceClass() + between }

// spaceClass is the members of a regexp character class matching every
// character read as a space: spaces, and each character whose baseForm is
// a space (the spacing accents "¨", "´", "˜", which read as an accent on
// nothing).
func (ref *reference) spaceClass() string {
	var b strings.Builder
	b.WriteString(spaces)
	ref.forEachBaseForm(func(r, base rune) {
		if base == ' ' && !unicode.IsSpace(r) && !unicode.Is(unicode.Z, r) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	})
	return b.String()
}

// breakClass is the members of a regexp character class matching every
// character read as a break between two letters of a word spelled apart:
// invisible characters and combining marks (between), spaces
// (spaceClass), dashes (dashClass) and stops (stopClass). A reader takes
// "[r e c a l l e d" and "[re-called" for the word.
func (ref *reference) breakClass() string {
	return ref.markerBlankClass() + ref.dashClass() + ref.stopClass()
}

// dashClass is the members of a regexp character class matching
// markerDashes and each character whose baseForm is a dash, a minus or
// '_' ("⁻", "＿").
func (ref *reference) dashClass() string {
	var b strings.Builder
	b.WriteString(markerDashes)
	ref.forEachBaseForm(func(r, base rune) {
		if (unicode.Is(unicode.Pd, base) || strings.ContainsRune("\u2212_", base)) && !unicode.Is(unicode.Pd, r) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	})
	return b.String()
}

// stopClass is the members of a regexp character class matching the full
// stop and each character whose baseForm is one ("．", "﹒").
func (ref *reference) stopClass() string { return ref.withForms(markerStops) }

// wordClass is the members of a regexp character class matching every
// character that continues a word or begins another (piece.alone):
// letters and digits (\p{L}, \p{N}), every character a letter of the
// phrases' words is read as ("|" for l), and each character whose
// baseForm is a letter or a digit ("ⓧ", "①"), marks aside.
func (ref *reference) wordClass() string {
	var b strings.Builder
	b.WriteString(`\p{L}\p{N}`)
	classes := ref.letters
	for _, l := range phraseLetters {
		b.WriteString(classes[l])
	}
	ref.forEachBaseForm(func(r, base rune) {
		if (unicode.IsLetter(base) || unicode.IsNumber(base)) && !unicode.Is(unicode.M, r) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	})
	return b.String()
}

// letterClass is the members of a regexp character class matching every
// character read as a letter (after seqWord: "[recall · seq 2" counts,
// "[recall · sequence" does not): letters (\p{L}), every character a
// letter of the phrases' words is read as ("1" and "|" for l), and each
// character whose baseForm is a letter, marks aside.
func (ref *reference) letterClass() string {
	var b strings.Builder
	b.WriteString(`\p{L}`)
	classes := ref.letters
	for _, l := range phraseLetters {
		b.WriteString(classes[l])
	}
	ref.forEachBaseForm(func(r, base rune) {
		if unicode.IsLetter(base) && !unicode.Is(unicode.M, r) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	})
	return b.String()
}

// tailClass is the members of a regexp character class matching what may
// follow stemWord before the separator: letters (\p{L}), every
// character a letter of the phrases' words is read as, invisible
// characters and combining marks ("[recalling ·", "[recaIIs ·").
func (ref *reference) tailClass() string {
	var b strings.Builder
	b.WriteString(`\p{L}` + between)
	classes := ref.letters
	for _, l := range phraseLetters {
		b.WriteString(classes[l])
	}
	return b.String()
}

// forEachBaseForm calls f with each character of compatRanges that has a
// baseForm, and that form, in order.
func (ref *reference) forEachBaseForm(f func(r, base rune)) {
	for _, p := range ref.bases {
		f(p[0], p[1])
	}
}

// baseForms are the characters of compatRanges that have a baseForm, with
// that form.
func baseForms() [][2]rune {
	var out [][2]rune
	for _, rg := range compatRanges {
		for r := rg[0]; r <= rg[1]; r++ {
			if base, ok := baseForm(r); ok {
				out = append(out, [2]rune{r, base})
			}
		}
	}
	return out
}

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

// reference is the live construction of markerSets: Unicode's data read
// once (bases, letters, spelled), from which the methods build the sets'
// regexp classes.
type reference struct {
	bases   [][2]rune       // baseForms
	letters map[rune]string // letterClasses
	spelled map[rune]string // spelledForms
}

// newReference reads compatRanges' decompositions, as render did on its
// first use before fu73.
func newReference() *reference {
	ref := &reference{bases: baseForms()}
	ref.letters = ref.letterClasses()
	ref.spelled = ref.spelledForms()
	return ref
}

// live is the reference, built once for the tests.
var live = sync.OnceValue(newReference)

// sets are the markerSets, parsed from the classes (classSet).
func (ref *reference) sets() *markerSets {
	blank, sep, stop := ref.markerBlankClass(), ref.withForms(markerDots+markerColons), ref.stopClass()
	s := &markerSets{
		brackets: classSet(ref.markerBracketClass()), bars: classSet(ref.markerBarClass()),
		between: classSet(between), space: classSet(ref.spaceClass()), blank: classSet(blank),
		stop: classSet(stop), sep: classSet(sep), breaks: classSet(ref.breakClass()),
		word: classSet(ref.wordClass()), letter: classSet(ref.letterClass()), tail: classSet(ref.tailClass()),
		blankSep: classSet(blank + sep), blankStopSep: classSet(blank + stop + sep),
	}
	for i, l := range phraseLetters {
		s.letters[i] = classSet(ref.letters[l])
	}
	for r, f := range ref.spelled {
		s.spelled = append(s.spelled, spelledRune{r, f})
	}
	slices.SortFunc(s.spelled, func(a, b spelledRune) int { return cmp.Compare(a.r, b.r) })
	return s
}
