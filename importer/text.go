package importer

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
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
	if off, r, ok := jsonkey.LoneSurrogate(b); ok {
		return fmt.Errorf("%w: \\u%04x at %s is half of a UTF-16 surrogate pair", ErrInvalidText, r, at(off))
	}
	return nil
}
