package render

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

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
// "⒭ecalled" reads "(r)ecalled", not a marker. Read once.
var spelledForms = sync.OnceValue(func() map[rune]string {
	brackets := classSet(markerBracketClass() + markerBarClass())
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
})

// letterReads are the ASCII and confusable characters a reader takes for
// the letter l of a phrase's word: markerReads and markerConfusables for
// the letters of MarkerWord, the letter in both cases for the others.
func letterReads(l rune) string {
	if r, ok := markerReads[l]; ok {
		return r + markerConfusables[l]
	}
	return string(l) + strings.ToUpper(string(l))
}

// phraseLetters are the letters of the phrases' words (phraseDefs), each
// once.
const phraseLetters = "recaldunstohpq"

// letterClasses are, for each letter of the phrases' words (MarkerWord,
// stemWord, untrustedWord, toolWord), the members of a regexp character
// class matching every character read as it: letterReads, and each
// character whose baseForm is one of those (the full-width,
// mathematical, script and circled forms, "ⅼ", "Ⅰ", and the letters
// with accents, "ŕ", "é", "ë"). Built once from baseForms.
var letterClasses = sync.OnceValue(func() map[rune]string {
	reads := map[rune]string{}
	classes := map[rune]*strings.Builder{}
	for _, l := range phraseLetters {
		reads[l] = letterReads(l)
		classes[l] = &strings.Builder{}
		for _, r := range reads[l] {
			classes[l].WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	forEachBaseForm(func(r, base rune) {
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
})

// withForms is the members of a regexp character class matching each
// character of chars and each character whose baseForm is one of them
// (for the brackets "︵", "﹝", "︻"; "｜" for '|'; "･" for '・').
func withForms(chars string) string {
	var b strings.Builder
	b.WriteString(regexp.QuoteMeta(chars))
	forEachBaseForm(func(r, base rune) {
		if strings.ContainsRune(chars, base) && !strings.ContainsRune(chars, r) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	})
	return b.String()
}

// markerBracketClass is the members of a regexp character class matching
// every opening bracket: markerBrackets withForms.
func markerBracketClass() string { return withForms(markerBrackets) }

// markerBarClass is the members of a regexp character class matching
// every vertical bar an opener may be: markerBars withForms.
func markerBarClass() string { return withForms(markerBars) }

// markerBlankClass is the members of a regexp character class matching
// every character allowed between the bracket and the word: spaceClass,
// invisible characters and marks.
func markerBlankClass() string { return spaceClass() + between }

// spaceClass is the members of a regexp character class matching every
// character read as a space: spaces, and each character whose baseForm is
// a space (the spacing accents "¨", "´", "˜", which read as an accent on
// nothing).
func spaceClass() string {
	var b strings.Builder
	b.WriteString(spaces)
	forEachBaseForm(func(r, base rune) {
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
func breakClass() string { return markerBlankClass() + dashClass() + stopClass() }

// dashClass is the members of a regexp character class matching
// markerDashes and each character whose baseForm is a dash, a minus or
// '_' ("⁻", "＿").
func dashClass() string {
	var b strings.Builder
	b.WriteString(markerDashes)
	forEachBaseForm(func(r, base rune) {
		if (unicode.Is(unicode.Pd, base) || strings.ContainsRune("\u2212_", base)) && !unicode.Is(unicode.Pd, r) {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	})
	return b.String()
}

// stopClass is the members of a regexp character class matching the full
// stop and each character whose baseForm is one ("．", "﹒").
func stopClass() string { return withForms(markerStops) }

// wordClass is the members of a regexp character class matching every
// character that continues a word or begins another (piece.alone):
// letters and digits (\p{L}, \p{N}), every character a letter of the
// phrases' words is read as ("|" for l), and each character whose
// baseForm is a letter or a digit ("ⓧ", "①"), marks aside.
func wordClass() string {
	var b strings.Builder
	b.WriteString(`\p{L}\p{N}`)
	classes := letterClasses()
	for _, l := range phraseLetters {
		b.WriteString(classes[l])
	}
	forEachBaseForm(func(r, base rune) {
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
func letterClass() string {
	var b strings.Builder
	b.WriteString(`\p{L}`)
	classes := letterClasses()
	for _, l := range phraseLetters {
		b.WriteString(classes[l])
	}
	forEachBaseForm(func(r, base rune) {
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
func tailClass() string {
	var b strings.Builder
	b.WriteString(`\p{L}` + between)
	classes := letterClasses()
	for _, l := range phraseLetters {
		b.WriteString(classes[l])
	}
	return b.String()
}

// forEachBaseForm calls f with each character of compatRanges that has a
// baseForm, and that form, in order.
func forEachBaseForm(f func(r, base rune)) {
	for _, p := range baseForms() {
		f(p[0], p[1])
	}
}

// baseForms are the characters of compatRanges that have a baseForm, with
// that form, read once for the three sets built from them.
var baseForms = sync.OnceValue(func() [][2]rune {
	var out [][2]rune
	for _, rg := range compatRanges {
		for r := rg[0]; r <= rg[1]; r++ {
			if base, ok := baseForm(r); ok {
				out = append(out, [2]rune{r, base})
			}
		}
	}
	return out
})
