package main

import (
	"fmt"
	"io"
)

// termSafe is the writer of every command's standard output: what it is
// given, with each control character other than line feed and tab written
// as its JSON escape (ESC as the six characters \u001b, U+009B as
// \u009b). Stored text (a message, a tool's output, a working memory, a
// thread's title) is printed by the text commands (messages, search,
// context, memctx, wm get, …) and may come from anyone who can append:
// raw, an escape sequence in it drove the operator's terminal (colours,
// erased lines, a window title, OSC 52 writing the clipboard). JSON
// output is unchanged in value: encoding/json escapes C0 controls itself,
// and a C1 control inside a JSON string becomes the escape that means it.
// A C1 control is two bytes in UTF-8 (0xC2, then 0x80-0x9F); one split
// across two writes passes as it is (fmt and encoding/json write each
// value whole).
type termSafe struct{ w io.Writer }

// Write writes p to the underlying writer with its control characters
// escaped, and returns len(p) when that write succeeds.
func (t termSafe) Write(p []byte) (int, error) {
	var out []byte // nil until p holds a control character
	for i := 0; i < len(p); i++ {
		c := p[i]
		var ctl rune = -1
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			ctl = rune(c)
		case c == 0xc2 && i+1 < len(p) && p[i+1] >= 0x80 && p[i+1] <= 0x9f:
			ctl = rune(p[i+1])
		}
		if ctl < 0 {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			out = append(make([]byte, 0, len(p)+16), p[:i]...)
		}
		out = fmt.Appendf(out, `\u%04x`, ctl)
		if ctl >= 0x80 {
			i++ // the second byte of the C1 control
		}
	}
	if out == nil {
		return t.w.Write(p)
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
