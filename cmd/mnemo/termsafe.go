package main

import (
	"fmt"
	"io"
	"strings"
)

// termSafe is the writer of every command's standard output and standard
// error: what it is given, with each control character other than line
// feed and tab, the line and paragraph separators (U+2028, U+2029), and
// each explicit bidirectional formatting character, written as its JSON
// escape (ESC as the six characters \u001b, U+009B as \u009b, U+2028 as
// \u2028, U+202E as \u202e). Stored text (a message, a tool's output, a
// working memory, a thread's title) is printed by the text commands
// (messages, search, context, memctx, wm get, …), and an error or skipped
// record's line on standard error quotes a file's text or name; stored
// text may come from anyone who can append: raw, an escape sequence in it
// drove the operator's terminal (colours, erased lines, a window title,
// OSC 52 writing the clipboard); a bidirectional override or isolate
// (U+202A-U+202E, U+2066-U+2069, the characters of "Trojan Source",
// CVE-2021-42574) reordered the rest of its line in a terminal that
// applies the Unicode bidirectional algorithm (VTE's, Konsole's), so that
// a line showed other text, or other columns, than it holds; and a line or
// paragraph separator, a line break to many terminals and log viewers,
// started a line of the text's making (a forged log line). The
// bidirectional marks (U+200E, U+200F, U+061C), which reorder nothing past
// themselves, and right-to-left letters pass as they are. JSON output is
// unchanged in value: encoding/json escapes C0 controls, U+2028 and U+2029
// itself, and a C1 control or a bidirectional character inside a JSON
// string becomes the escape that means it. A C1 control is two bytes in
// UTF-8 (0xC2, then 0x80-0x9F), a separator or bidirectional character
// three; one split across two writes passes as it is (fmt and
// encoding/json write each value whole).
type termSafe struct{ w io.Writer }

// Write writes p to the underlying writer with its control, separator and
// bidirectional formatting characters escaped, and returns len(p) when
// that write succeeds.
func (t termSafe) Write(p []byte) (int, error) {
	var out []byte // nil until p holds a character to escape
	for i := 0; i < len(p); {
		r, n := unsafeAt(p[i:])
		if n == 0 {
			if out != nil {
				out = append(out, p[i])
			}
			i++
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(p)+16), p[:i]...)
		}
		out = fmt.Appendf(out, `\u%04x`, r)
		i += n
	}
	if out == nil {
		return t.w.Write(p)
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// unsafeAt returns the character that b starts with and its length in
// bytes when termSafe escapes it: a C0 control but line feed and tab,
// DEL, a C1 control (0xC2 0x80-0x9F), the line or paragraph separator
// (U+2028, U+2029: 0xE2 0x80 0xA8-0xA9), a bidirectional embedding or
// override (U+202A-U+202E: 0xE2 0x80 0xAA-0xAE) or isolate (U+2066-U+2069:
// 0xE2 0x81 0xA6-0xA9); else 0, 0.
func unsafeAt(b []byte) (rune, int) {
	c := b[0]
	switch {
	case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
		return rune(c), 1
	case c == 0xc2 && len(b) > 1 && b[1] >= 0x80 && b[1] <= 0x9f:
		return rune(b[1]), 2
	case c == 0xe2 && len(b) > 2 && b[1] == 0x80 && b[2] >= 0xa8 && b[2] <= 0xae:
		return 0x2000 + rune(b[2]-0x80), 3
	case c == 0xe2 && len(b) > 2 && b[1] == 0x81 && b[2] >= 0xa6 && b[2] <= 0xa9:
		return 0x2040 + rune(b[2]-0x80), 3
	}
	return 0, 0
}

// termSafeText is s as termSafe writes it: for text a raw writer
// (rawWriter) shows, such as a progress bar's description naming a FILE.
func termSafeText(s string) string {
	var b strings.Builder
	_, _ = termSafe{&b}.Write([]byte(s))
	return b.String()
}

// rawWriter returns the writer under w when w is a termSafe, else w: a
// progress bar draws with carriage returns and escape sequences of its
// own, on the terminal isTerminal found. What it shows of stored text or a
// name goes through termSafeText.
func rawWriter(w io.Writer) io.Writer {
	if t, ok := w.(termSafe); ok {
		return t.w
	}
	return w
}
