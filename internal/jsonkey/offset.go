package jsonkey

import (
	"encoding/json"
	"strings"
)

// Where a message to a user names a place in a JSON text ("at byte N",
// "not UTF-8 at byte N", a depth error's "(at byte N)"), N is the offset of
// the byte at fault counted from 0: the number of bytes before it, as
// DeeperThan's, TrailingError's and TextError's Offset fields count, and as
// Go indexes a []byte. The first byte of a text is byte 0. (The JSONL
// importer names a line's bytes by column instead, 1-based as editors
// count columns; it says "column", never "byte".)

// SyntaxOffset is the offset, counted from 0, of the byte at which
// encoding/json stopped with se: the bad character's (se.Offset counts
// the bytes read including it, so from 1), or the text's length for
// "unexpected end of JSON input" (nothing is there: the byte after the
// last).
func SyntaxOffset(se *json.SyntaxError) int64 {
	if se.Offset == 0 || strings.Contains(se.Error(), "unexpected end of JSON input") {
		return se.Offset
	}
	return se.Offset - 1
}
