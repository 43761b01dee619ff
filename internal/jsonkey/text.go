package jsonkey

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// TextError is returned by Text when a JSON file's bytes are not a JSON
// text as encoding/json reads it: a UTF-8 byte-order mark at its start
// (RFC 8259, 8.1: not to be added; encoding/json refuses it as `invalid
// character 'ï' looking for beginning of value`), or bytes that are not
// UTF-8, which encoding/json reads in a string as U+FFFD, changing the
// string without a word (a token file saved as Latin-1 held secrets that
// no client sends). Offset counts bytes from the text's start, from 0, as
// TrailingError's does.
type TextError struct {
	Offset int64 // of the first byte that is not UTF-8; 0 for a byte-order mark
	BOM    bool  // the text begins with a UTF-8 byte-order mark
}

func (e *TextError) Error() string {
	if e.BOM {
		return "the file begins with a UTF-8 byte-order mark (EF BB BF), which JSON does not allow: save it as UTF-8 without one"
	}
	return fmt.Sprintf("not UTF-8 at byte %d (JSON text is UTF-8; a string holding the byte would be read as U+FFFD): save the file as UTF-8", e.Offset)
}

// Text returns a *TextError when data, a JSON file's bytes, begins with a
// UTF-8 byte-order mark or holds bytes that are not UTF-8; else nil.
func Text(data []byte) error {
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return &TextError{BOM: true}
	}
	if utf8.Valid(data) {
		return nil
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return &TextError{Offset: int64(i)}
		}
		i += n
	}
	return nil
}

// ByteOrderMark says which byte-order mark data begins with: n is 3 for
// the UTF-8 mark (U+FEFF, EF BB BF: what Notepad and other editors saving
// "UTF-8 with BOM" put before a file's text), which RFC 8259 §8.1 lets a
// parser ignore, else 0; utf16 is "FFFE" or "FEFF" for a UTF-16 mark (as
// Windows PowerShell 5 writes a file), which JSON text cannot begin with,
// else "". The HTTP API's bodies, /mcp's and each line of mnemo mcp read
// through the first and refuse the second naming it.
func ByteOrderMark(data []byte) (n int, utf16 string) {
	switch {
	case bytes.HasPrefix(data, []byte("\uFEFF")):
		return 3, ""
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return 0, fmt.Sprintf("%X", data[:2])
	}
	return 0, ""
}
