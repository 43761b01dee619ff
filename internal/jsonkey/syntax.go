package jsonkey

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NamedSyntax returns se, which encoding/json returned reading text, with
// the character it stopped at named whole and by code point: "invalid
// character '\u00a0' (U+00A0) looking for beginning of value", where
// encoding/json names a character past ASCII by its first byte read as
// Latin-1 ('Â' for U+00A0's 0xC2, 'â' for U+2003's 0xE2). It returns se
// itself when that byte is ASCII, is not the start of a valid UTF-8
// character, or lies outside text; else an error that unwraps to se
// (errors.As finds the *json.SyntaxError and its Offset).
func NamedSyntax(text []byte, se *json.SyntaxError) error {
	i := int(se.Offset) - 1 // se.Offset counts the bad byte (offset.go)
	if i < 0 || i >= len(text) || text[i] < utf8.RuneSelf {
		return se
	}
	r, size := utf8.DecodeRune(text[i:])
	if r == utf8.RuneError && size <= 1 {
		return se
	}
	q := strconv.Quote(string(rune(text[i]))) // encoding/json's quoteChar
	latin1 := "'" + q[1:len(q)-1] + "'"
	msg := se.Error()
	if !strings.Contains(msg, latin1) {
		return se
	}
	return &namedSyntaxError{se: se, msg: strings.Replace(msg, latin1, fmt.Sprintf("%q (%U)", r, r), 1)}
}

// namedSyntaxError is NamedSyntax's error: a *json.SyntaxError's text
// with its character named.
type namedSyntaxError struct {
	se  *json.SyntaxError
	msg string
}

func (e *namedSyntaxError) Error() string { return e.msg }
func (e *namedSyntaxError) Unwrap() error { return e.se }
