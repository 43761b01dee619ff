package render

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
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

// Control reports whether r is a control character that every rendering
// writes as an escape, as it does a Hidden one: a C0 control but tab, line
// feed and carriage return, DEL, a C1 control (U+0080–U+009F), and the line
// and paragraph separators U+2028 and U+2029. A carriage return is escaped
// too unless a line feed follows it: a CRLF line break reads as one line
// break to everyone. Raw, they read one way to a person and another to the
// model: a terminal or log viewer showing the prompt moves its cursor back
// on a carriage return or backspace, so the text after it is drawn over
// the text before ("ignore the rules\rhello           " shows "hello"),
// runs an escape sequence (ESC [8m hides the rest of the line), and breaks
// a line at U+2028 or U+2029 where another viewer, or a line-based tool,
// sees none: a line that looks like one of mnemo's own. Tab and line feed
// are text (the model and a reader both see a new line at a line feed).
func Control(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029
}

// Escaped reports whether every rendering writes r, found in a text just
// before rest (the text after r), as an escape: a Hidden or Control
// character, or a carriage return that no line feed follows (rest does not
// start with "\n"). A CRLF is a line break, as a line feed alone is, and
// passes; a lone carriage return moves a terminal's cursor back to the
// start of its line, so it is escaped. The inspector's pages and the CLI's
// text output show what it reports as the prompt does.
func Escaped(r rune, rest string) bool {
	return Hidden(r) || Control(r) || (r == '\r' && !strings.HasPrefix(rest, "\n"))
}

// mayEscape is the cheap test of escapeHidden's scan: r is one Escaped may
// report. An ASCII character is one when it is a control but tab and line
// feed (no Hidden character is ASCII).
func mayEscape(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f
	}
	return Hidden(r) || Control(r)
}

// escapeHidden returns s with each Hidden or Control character, and each
// carriage return no line feed follows, written by esc, and s itself when
// it holds none.
func escapeHidden(s string, esc func(*strings.Builder, rune)) string {
	i := strings.IndexFunc(s, mayEscape)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for j, r := range s[i:] {
		if Escaped(r, s[i+j+1:]) { // rest is read only after a '\r', one byte
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
// \u202e, or the surrogate pair \udb40\udc41 past U+FFFF; a carriage
// return as a space: raw in valid JSON it is white space between tokens
// (a string cannot hold one), where \u000d would not be JSON and a space
// means the same.
func escapeJSON(b *strings.Builder, r rune) {
	if r == '\r' {
		b.WriteByte(' ')
		return
	}
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}

// HiddenJSON writes each Hidden or Control character of JSON text s as
// its JSON escape (\u202e, a surrogate pair past U+FFFF), and a carriage
// return no line feed follows as a space, and changes nothing else:
// the value s encodes is the same, for tool-call arguments, which the model
// reads as its own call and which are neither quoted nor entity-escaped,
// and for the JSON lines of stored turns and observations the observer and
// reflector models read (package observe).
func HiddenJSON(s string) string { return escapeHidden(s, escapeJSON) }
