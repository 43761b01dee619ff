package render

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Hidden reports whether r is a character that makes stored text read one
// way to a person and another to the model, which every rendering shows as
// an escape instead of applying it (Message: \u202e; Text and Attr:
// &#x202E;; JSON: \u202e, a surrogate pair past U+FFFF):
//
//   - the bidirectional controls, Unicode's Bidi_Control property
//     (unicode.Bidi_Control): the embeddings, overrides and their pop
//     U+202A–U+202E, the isolates U+2066–U+2069 and the marks U+200E,
//     U+200F and U+061C. They reorder what a screen draws, not what the
//     model reads: "pay invoice_\u202efdp.exe" shows as "pay
//     invoice_exe.pdf" ("Trojan Source", CVE-2021-42574), and a mark
//     reorders the numbers after it (U+061C before "12-34" shows "34-12");
//   - the tag characters U+E0000–U+E007F, which spell ASCII text no screen
//     shows but models read ("ASCII smuggling": an instruction invisible to
//     whoever reviews the prompt);
//   - the interlinear annotation characters U+FFF9–U+FFFB, whose
//     annotation text a renderer may hide.
//
// Every one of them is a format character (Cf), but not every format
// character is here: the joiners U+200C and U+200D spell Persian, the
// Indic scripts and emoji sequences, U+200B separates the words of Thai,
// Khmer and Lao, and a soft hyphen or U+FEFF hides nothing but itself; the
// text a person sees is the text the model reads. A subdivision flag
// (England's, Scotland's, Wales's) is spelled with tag characters, so it
// is written escaped too. golang.org/x/text/unicode/bidi classes the marks
// as L, R and AL, as it does letters, so the property table, not the bidi
// classes, names them.
func Hidden(r rune) bool {
	return unicode.Is(unicode.Bidi_Control, r) || (r >= 0xE0000 && r <= 0xE007F) || (r >= 0xFFF9 && r <= 0xFFFB)
}

// escapeHidden returns s with each Hidden character written by esc, and s
// itself when it holds none.
func escapeHidden(s string, esc func(*strings.Builder, rune)) string {
	i := strings.IndexFunc(s, Hidden)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if Hidden(r) {
			esc(&b, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// escapeGo writes r as Go and Python write it in a string: \u202e, or
// \U000e0041 past U+FFFF. Message content is not escaped otherwise, so
// this is a reader's escape, not a lossless one: text that holds the six
// characters \u202e reads the same.
func escapeGo(b *strings.Builder, r rune) {
	if r > 0xFFFF {
		fmt.Fprintf(b, `\U%08x`, r)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}

// escapeRef writes r as a hexadecimal character reference, &#x202E;, as
// textEscaper writes the look-alike angle brackets.
func escapeRef(b *strings.Builder, r rune) { fmt.Fprintf(b, "&#x%X;", r) }

// escapeJSON writes r as the JSON escape that means it inside a string:
// \u202e, or the surrogate pair \udb40\udc41 past U+FFFF.
func escapeJSON(b *strings.Builder, r rune) {
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}

// HiddenJSON writes each Hidden character of JSON text s as its JSON
// escape (\u202e, a surrogate pair past U+FFFF) and changes nothing else:
// the value s encodes is the same, for tool-call arguments, which the model
// reads as its own call and which are neither quoted nor entity-escaped.
func HiddenJSON(s string) string { return escapeHidden(s, escapeJSON) }
