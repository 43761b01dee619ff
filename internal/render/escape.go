package render

import (
	"regexp"
	"strings"
	"sync"
)

// textEscaper escapes stored text for the inside of a system-part block.
// '&' is escaped too, so the escaping is unambiguous (lossless). The
// full-width (U+FF1C, U+FF1E) and small-form (U+FE64, U+FE65) angle brackets
// read as '<' and '>' to a model and are escaped like them.
var textEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"＜", "&#xFF1C;", "＞", "&#xFF1E;", "﹤", "&#xFE64;", "﹥", "&#xFE65;",
)

// jsonEscaper is textEscaper for JSON text: '<', '>' and '&' occur in valid
// JSON only inside strings, where the \u escapes mean the same characters.
var jsonEscaper = strings.NewReplacer(
	"&", `\u0026`, "<", `\u003c`, ">", `\u003e`,
	"＜", `\uff1c`, "＞", `\uff1e`, "﹤", `\ufe64`, "﹥", `\ufe65`,
)

// attrEscaper escapes an attribute value written between double quotes.
var attrEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
	"＜", "&#xFF1C;", "＞", "&#xFF1E;", "﹤", "&#xFE64;", "﹥", "&#xFE65;",
	"\n", " ", "\r", " ",
)

// Text escapes stored text for the inside of a delimited block of the system
// part (an observation, a reflection, a markdown working memory): no '<' or
// '>' is left, so the text cannot open or close a tag, marker-shaped text
// is quoted as Message does, and each Hidden or Control character (and a
// carriage return no line feed follows) is written as a character
// reference (&#x202E;, &#xD;).
func Text(s string) string { return escapeHidden(textEscaper.Replace(quote(s)), escapeRef) }

// JSON escapes JSON text (a schema-mode working memory) for the inside of a
// delimited block: '<', '>', '&', their look-alikes and the Hidden and
// Control characters become \u escapes, which mean the same inside JSON
// strings, a carriage return no line feed follows (white space between
// tokens in valid JSON) becomes a space, and marker-shaped text is quoted.
// The result is valid JSON, of the same value, when s is.
func JSON(s string) string { return escapeHidden(jsonEscaper.Replace(quote(s)), escapeJSON) }

// Attr escapes a value written inside double quotes in one of mnemo's tags:
// Text's escapes plus '"' and line breaks (as a space).
func Attr(s string) string { return escapeHidden(attrEscaper.Replace(quote(s)), escapeRef) }

// MarkerWord is the word that opens mnemo's recall marker, "[recalled · …]".
const MarkerWord = "recalled"

// QuotedPrefix is inserted after the bracket of marker-shaped text found in
// stored text: "[recalled" is rendered as "[quoted: recalled".
const QuotedPrefix = "quoted: "

// markerShaped matches the opening of marker-shaped text: an opening square
// or round bracket ('[', '(' or a look-alike: markerBrackets), any spaces or invisible
// characters, then "recalled" in any case, each letter one a reader takes
// for it (markerLetterClasses: ASCII, full-width, mathematical, script or
// Roman-numeral forms, and UTS #39 confusables of other scripts: "[rеcalled"
// with a Cyrillic е, "[recαlled" with a Greek α, "[recaIIed"), with any
// invisible characters between the letters. A model reads "[re\u200bcalled"
// (a zero-width space inside the word) or "[rеcalled" as the word, and
// both passed unquoted before. It is built on first use (Message), as
// building it reads some 16,000 characters' decompositions.
var markerShaped = sync.OnceValue(func() *regexp.Regexp {
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

// markerBrackets are the opening brackets read as '[': ASCII, full-width,
// and the square-bracket forms of Unicode's open punctuation (white, with
// quill, tortoise-shell and lenticular shapes, the vertical presentation
// form); and the round ones, ASCII, full-width, small, superscript,
// subscript and ornamental: "(recalled · thread t · seq 9 · …)" reads
// as the marker too (walk46).
const markerBrackets = `[［⟦〚⁅〔〘【〖﹇⦋⦍⦏(（﹙⁽₍❨❪`

// invisible are the characters a text shows as nothing: format characters
// (zero-width space, joiners, soft hyphen, BOM, bidi marks) and the other
// default-ignorable code points of Unicode (combining grapheme joiner,
// Hangul fillers, Khmer inherent vowels, Mongolian and Unicode variation
// selectors), as regexp character class members.
const invisible = `\p{Cf}\x{034F}\x{115F}\x{1160}\x{17B4}\x{17B5}\x{180B}-\x{180F}\x{3164}\x{FE00}-\x{FE0F}\x{FFA0}\x{E0100}-\x{E01EF}`

// Message renders message content (any role, recent or recalled): every
// "[recalled" becomes "[quoted: recalled" (see markerShaped for what
// counts), so a stored turn can neither pass for a recalled one nor nest a
// second marker inside a genuine one, and each Hidden or Control character
// (and a carriage return no line feed follows) is written as its escape,
// "\u202e", "\u000d" ("\U000e0041" past U+FFFF), so the content reads to
// a person as the model reads it. The rest of the content is unchanged:
// messages are delimited by the provider's roles, not by tags.
func Message(s string) string { return escapeHidden(quote(s), escapeGo) }

// quote quotes marker-shaped text in s: "[recalled" becomes "[quoted:
// recalled". It runs before any escaping, on the text as stored, so that
// the invisible characters markerShaped looks through are still there.
func quote(s string) string {
	if !strings.ContainsAny(s, markerBrackets) {
		return s
	}
	return markerShaped().ReplaceAllString(s, "${1}"+QuotedPrefix+"${2}${3}")
}

// Open writes an opening tag of mnemo's own: <name k1="v1" k2="v2">, each
// value escaped by Attr; attrs are key, value pairs, and a pair whose value
// is empty is left out. Names and keys are mnemo's constants.
func Open(name string, attrs ...string) string {
	var b strings.Builder
	b.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] == "" {
			continue
		}
		b.WriteString(" " + attrs[i] + `="` + Attr(attrs[i+1]) + `"`)
	}
	b.WriteString(">")
	return b.String()
}

// Close writes the closing tag of Open(name, …).
func Close(name string) string { return "</" + name + ">" }
