package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/internal/render"
)

// termSafe is the writer of every command's standard output and standard
// error: what it is given, with each control character other than line
// feed and tab (a carriage return when no line feed follows it in the
// write: a CRLF is a line break, as the prompt reads it, where a lone one
// draws the rest of the line over its start), the line and paragraph
// separators (U+2028, U+2029), and
// each character the prompt's rendering escapes (render.Hidden: the
// bidirectional controls, tag and interlinear annotation characters)
// written as its JSON escape (ESC as the six characters \u001b, U+009B as
// \u009b, U+2028 as \u2028, U+202E as \u202e, U+061C as \u061c, the tag
// character U+E0041 as the surrogate pair \udb40\udc41). Stored text (a
// message, a tool's output, a working memory, a thread's title) is printed
// by the text commands (messages, search, context, memctx, wm get, …), and
// an error or skipped record's line on standard error quotes a file's text
// or name; stored text may come from anyone who can append: raw, an escape
// sequence in it drove the operator's terminal (colours, erased lines, a
// window title, OSC 52 writing the clipboard); a bidirectional control
// reordered what a terminal that applies the Unicode bidirectional
// algorithm (VTE's, Konsole's) draws, so that a line showed other text, or
// other columns, than it holds: an override or isolate (U+202A-U+202E,
// U+2066-U+2069) the rest of its line ("Trojan Source", CVE-2021-42574),
// and a mark the runs beside it (UAX #9: U+061C is an AL character, and
// U+200F an R one, so numbers after them are laid out right to left:
// U+061C before "1999-2024" draws "2024-1999"); tag characters spelled
// text no screen shows; and a line or paragraph separator, a line break to
// many terminals and log viewers, started a line of the text's making (a
// forged log line). Right-to-left letters pass as they are, as do the
// invisible characters render.Hidden leaves (the joiners, the zero-width
// space, the soft hyphen). JSON output is unchanged in value:
// encoding/json escapes C0 controls, U+2028 and U+2029 itself, and any
// other of these characters inside a JSON string becomes the escape that
// means it (a surrogate pair past U+FFFF). A C1 control is two bytes in
// UTF-8, a separator or bidirectional character two or three, a tag
// character four; one split across two writes passes as it is (fmt and
// encoding/json write each value whole). A carriage return that ends a
// write is escaped: no line feed is known to follow it.
type termSafe struct{ w io.Writer }

// Write writes p to the underlying writer with its control, separator and
// hidden characters escaped, and returns len(p) when that write succeeds.
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
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
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
// bytes when termSafe escapes it: what every rendering of the prompt
// escapes (render.Escaped: a C0 control but tab and line feed, DEL, a C1
// control, U+2028, U+2029, render.Hidden, and a carriage return the next
// byte of b is no line feed after); else 0, 0 (and for bytes that are not
// valid UTF-8).
func unsafeAt(b []byte) (rune, int) {
	r, n := rune(b[0]), 1
	if b[0] >= utf8.RuneSelf {
		r, n = utf8.DecodeRune(b)
	}
	// Escaped reads rest only after a carriage return, and its first byte
	// only: one byte is converted (no allocation).
	if render.Escaped(r, string(b[n:min(len(b), n+1)])) {
		return r, n
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
