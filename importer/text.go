package importer

import (
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrInvalidText is the cause of a *RecordError for a record that is not
// valid UTF-8 or whose JSON escapes encode a lone UTF-16 surrogate.
// encoding/json turns either into U+FFFD silently; Import refuses them as
// Engine.Append refuses invalid text, so nothing is stored altered.
var ErrInvalidText = errors.New("not valid UTF-8")

// checkText refuses a JSON record (one array element, a request body)
// holding invalid UTF-8 or a \u escape of an unpaired surrogate
// (\ud800–\udfff not forming a pair). The error gives the byte's offset in
// the record, counted from 0 as every "at byte N" is (jsonkey.SyntaxOffset):
// "invalid byte 0xff at byte 55".
func checkText(b []byte) error {
	return invalidText(b, func(off int) string { return fmt.Sprintf("byte %d", off) })
}

// checkLineText is checkText for a JSONL record, lead bytes into its
// line: the error gives the byte's column on the line, 1-based as a
// syntax error's (syntaxReason): "invalid byte 0xff at column 56".
func checkLineText(b []byte, lead int) error {
	return invalidText(b, func(off int) string { return fmt.Sprintf("column %d", lead+off+1) })
}

// invalidText is checkText with at saying where the byte at offset off
// of b is.
func invalidText(b []byte, at func(off int) string) error {
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			r, n := utf8.DecodeRune(b[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return fmt.Errorf("%w: invalid byte 0x%02x at %s", ErrInvalidText, b[off], at(off))
	}
	// Outside strings a backslash is not valid JSON, which the decoder
	// reports; inside them each escape is two bytes or \uXXXX.
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' {
			i++ // skip the escaped byte (it may be a backslash)
			continue
		}
		r, ok := hex4(b[i+2:])
		if !ok {
			continue // malformed: the decoder reports it
		}
		if utf16.IsSurrogate(r) {
			lo, ok2 := rune(0), false
			if i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				lo, ok2 = hex4(b[i+8:])
			}
			if r >= 0xdc00 || !ok2 || utf16.DecodeRune(r, lo) == utf8.RuneError {
				return fmt.Errorf("%w: \\u%04x at %s is half of a UTF-16 surrogate pair", ErrInvalidText, r, at(i))
			}
			i += 6 // the low half
		}
		i += 5
	}
	return nil
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
