package jsonkey

import (
	"unicode/utf16"
	"unicode/utf8"
)

// EncodedLen is the length in bytes of Marshal's encoding of the value
// the JSON text raw decodes to with json.Decoder.UseNumber (numbers kept
// as written), computed from raw's bytes without decoding it: its
// whitespace left out, each string as Marshal writes it (", \ and the
// control characters \b \f \n \r \t as two-byte escapes, other control
// characters, U+2028 and U+2029 as \uXXXX, every other character as its
// UTF-8; an escape in raw counted as the character it stands for, a lone
// surrogate as U+FFFD). Object members repeated in raw are all counted
// (decoded, the last one wins): refuse them first (Repeated). raw must be
// valid JSON text; for other bytes the result is meaningless. A server
// bounds a member by the engine's byte bound with it before decoding:
// decoded into map[string]any, 1.3 million empty arrays cost 187 MB.
func EncodedLen(raw []byte) int {
	n := 0
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
			i++
		case '"':
			l, end := stringLen(raw, i+1)
			n += l
			i = end
		default:
			n++
			i++
		}
	}
	return n
}

// stringLen is the encoded length, quotes included, of the string whose
// text starts at raw[i] (after its opening quote), and the index after
// its closing quote.
func stringLen(raw []byte, i int) (int, int) {
	n := 2
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '"':
			return n, i + 1
		case c == '\\' && i+1 < len(raw):
			r, next := unescape(raw, i)
			n += runeLen(r)
			i = next
		case c < utf8.RuneSelf:
			n += runeLen(rune(c))
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			n += runeLen(r) // an invalid byte decodes to U+FFFD, 3 bytes
			i += size
		}
	}
	return n, i
}

// unescape decodes the escape at raw[i] ('\\'): the character and the
// index after it; a surrogate pair is one character, a lone surrogate
// U+FFFD, as encoding/json decodes them.
func unescape(raw []byte, i int) (rune, int) {
	switch raw[i+1] {
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		r, ok := hex4(raw[i+2:])
		if !ok {
			return utf8.RuneError, i + 2
		}
		if !utf16.IsSurrogate(r) {
			return r, i + 6
		}
		if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
			if r2, ok := hex4(raw[i+8:]); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, i + 12
				}
			}
		}
		return utf8.RuneError, i + 6
	}
	return rune(raw[i+1]), i + 2 // \" \\ \/
}

// runeLen is the length of r as Marshal writes it inside a string
// (SetEscapeHTML(false)).
func runeLen(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\b' || r == '\f' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '\u2028' || r == '\u2029':
		return 6
	}
	return utf8.RuneLen(r)
}
