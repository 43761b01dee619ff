package render

import "strings"

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

// ToolJSON renders JSON text a model reads outside mnemo's tags (a
// schema-mode working memory returned by an MCP tool): marker-shaped text
// is quoted as Message does, each Hidden or Control character becomes its
// JSON escape and a carriage return no line feed follows a space, as JSON
// does; '<', '>' and '&' stay as they are, as no tag encloses the text.
// The result is valid JSON, of the same value up to the quoting, when s
// is.
func ToolJSON(s string) string { return escapeHidden(quote(s), escapeJSON) }

// Attr escapes a value written inside double quotes in one of mnemo's tags:
// Text's escapes plus '"' and line breaks (as a space).
func Attr(s string) string { return escapeHidden(attrEscaper.Replace(quote(s)), escapeRef) }

// MarkerWord is the word that opens mnemo's recall marker, "[recalled · …]".
const MarkerWord = "recalled"

// QuotedPrefix is inserted after the bracket of marker-shaped text found in
// stored text: "[recalled" is rendered as "[quoted: recalled".
const QuotedPrefix = "quoted: "

// Message renders message content (any role, recent or recalled): every
// "[recalled" becomes "[quoted: recalled" (see markerShape for what
// counts), so a stored turn can neither pass for a recalled one nor nest a
// second marker inside a genuine one, and each Hidden or Control character
// (and a carriage return no line feed follows) is written as its escape,
// "\u202e", "\u000d" ("\U000e0041" past U+FFFF), so the content reads to
// a person as the model reads it. The rest of the content is unchanged:
// messages are delimited by the provider's roles, not by tags.
func Message(s string) string { return escapeHidden(quote(s), escapeGo) }

// Quote is Message's quoting alone: marker-shaped text quoted as Message
// quotes it ("[recalled" becomes "[quoted: recalled"), the Hidden and
// Control characters left as they are. It is for a person's view of what
// a prompt held that shows those characters its own way (the inspector's
// "[U+202E]" boxes, the CLI's escapes): Message(Quote(s)) is Message(s).
// A prompt takes Message, never Quote.
func Quote(s string) string { return quote(s) }

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
