package jsonkey

import (
	"unicode/utf16"
	"unicode/utf8"
)

// LoneSurrogate finds the first \u escape in the JSON text b that is half
// of a UTF-16 surrogate pair (\ud800–\udfff not forming a pair), which
// encoding/json reads as U+FFFD without a word. It returns the escape's
// offset in b (of its backslash, counted from 0) and the half it
// escapes, with found true; found is false when b has none. b need not
// be valid JSON: outside strings a backslash is a syntax error the
// decoder reports, and a malformed escape is skipped. Linear in len(b).
func LoneSurrogate(b []byte) (off int, r rune, found bool) {
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
				return i, r, true
			}
			i += 6 // the low half
		}
		i += 5
	}
	return 0, 0, false
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
