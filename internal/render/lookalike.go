package render

import (
	"regexp"
	"strings"
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
// (NFKC) is one letter live: Latin-1 to Enclosed Alphanumerics (ª, the
// modifier and superscript letters, ℯ, ℓ, the Roman numerals ⅼ ⅽ ⅾ, the
// circled letters), the full-width forms, the Mathematical Alphanumeric
// Symbols (𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝) and the enclosed and squared letters.
var compatRanges = [][2]rune{{0x00A0, 0x33FF}, {0xFB00, 0xFFEF}, {0x1D400, 0x1D7FF}, {0x1F100, 0x1F1FF}}

// markerLetterClasses are, for each letter of MarkerWord, the members of a
// regexp character class matching every character read as it:
// markerReads, markerConfusables, and each character whose NFKC form is
// one of those (the full-width, mathematical, script and circled forms,
// "ⅼ", "Ⅰ"). It reads compatRanges once (about 16,000 characters).
func markerLetterClasses() map[rune]string {
	reads := map[rune]string{}
	classes := map[rune]*strings.Builder{}
	for _, l := range MarkerWord {
		reads[l] = markerReads[l] + markerConfusables[l]
		classes[l] = &strings.Builder{}
		for _, r := range reads[l] {
			classes[l].WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	for _, rg := range compatRanges {
		for r := rg[0]; r <= rg[1]; r++ {
			n := norm.NFKC.String(string(r))
			c, size := utf8.DecodeRuneInString(n)
			if size != len(n) || c == r {
				continue
			}
			for l, rs := range reads {
				if strings.ContainsRune(rs, c) && !strings.ContainsRune(rs, r) {
					classes[l].WriteString(regexp.QuoteMeta(string(r)))
				}
			}
		}
	}
	out := make(map[rune]string, len(classes))
	for l, b := range classes {
		out[l] = b.String()
	}
	return out
}
