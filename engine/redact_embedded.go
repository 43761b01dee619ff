package engine

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// redactEmbedded redacts s, text that is no JSON document, with each JSON
// object or array found in it redacted as a document (redactDocument) and
// the text around them by the rules; red is s redacted as text, returned
// when s holds no such value. A value is looked for at the first '{' or
// '[' of each line, where a line of JSON Lines, a document followed by
// more lines ("…}\nexit 0", pretty-printed or not), a value after a BOM or
// after a prefix on its line ("result: {…}", a log line's payload)
// begins; when a '{' or '[' there starts no value ("[INFO] {…}"), the
// next one on the line is tried. A prefix the rules would extend into the value (`token: {…}`,
// where the whole rest of the line is the secret) keeps that line text.
//
// The cost is bounded: a value that runs to the end of s unclosed (a
// truncated tool result) ends the search, and the bytes looked at by
// attempts that failed (and by safePrefix, at most prefixLook bytes
// before each '{' or '[') may not exceed four times the length of s.
func (r *PatternRedactor) redactEmbedded(s, red string) string {
	var out []byte
	last, budget := 0, 4*len(s)+4096
	for ls := 0; ls < len(s) && budget > 0; {
		p, end, err := r.lineValue(s, ls, &budget)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if p < 0 {
			ls = lineEnd(s, ls) + 1
			continue
		}
		out = append(out, r.redactText(s[last:p])...)
		out = append(out, r.redactValue(s[p:end])...)
		last, ls = end, end // the rest of the line is looked at as a line
	}
	if out == nil {
		return red
	}
	return string(append(out, r.redactText(s[last:])...))
}

// redactValue redacts v, a JSON value found in text, as a document; one
// with no escape, no run of digits and no secret's key before a list or
// an object (keyedContainer) that the rules leave alone is kept
// at the cost of one pass of the rules (as Redact keeps a document).
func (r *PatternRedactor) redactValue(v string) string {
	if strings.IndexByte(v, '\\') < 0 && !digitRun(v) && !r.keyedContainer(v) && r.redactText(v) == v {
		return v
	}
	return r.redactDocument(v)
}

// lineValue finds the first JSON object or array that starts on the line
// of s beginning at ls after a safe prefix, and returns where it starts
// and ends, or p < 0. Each failed attempt takes what it looked at from
// *budget; err is io.ErrUnexpectedEOF when an attempt ran to the end of
// s (no later start can close either).
func (r *PatternRedactor) lineValue(s string, ls int, budget *int) (p, end int, err error) {
	eol := lineEnd(s, ls)
	for from := ls; from < eol && *budget > 0; from = p + 1 {
		i := strings.IndexAny(s[from:eol], "{[")
		if i < 0 {
			break
		}
		p = from + i
		prefix := s[max(ls, p-prefixLook):p]
		*budget -= len(prefix)
		if !r.safePrefix(prefix) {
			break
		}
		n, err := jsonValueEnd(s[p:])
		if err == nil {
			return p, p + n, nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return -1, 0, err
		}
		*budget -= n + 512 // the decoder reads 512 bytes at least
	}
	return -1, 0, nil
}

// lineEnd is the index of the first '\n' of s at or after i, or len(s).
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// prefixLook is how many bytes before a JSON value safePrefix looks at:
// enough for a credential name and its operator, and a bound on its cost
// on a long line of many brackets.
const prefixLook = 128

// safePrefix reports whether a JSON value after prefix (the text before
// it on its line) may be redacted apart from it: the prefix is blanks or
// a BOM, or the rules leave it alone with a quoted value after it (no
// "password: " or "token=" whose value would run into the JSON).
func (r *PatternRedactor) safePrefix(prefix string) bool {
	if !utf8.ValidString(prefix) && len(prefix) == prefixLook {
		prefix = strings.ToValidUTF8(prefix, "") // cut inside a rune
	}
	if strings.Trim(prefix, " \t\r\ufeff") == "" {
		return true
	}
	probe := prefix + `"abcd1234"`
	return r.redactText(probe) == probe
}

// jsonValueEnd returns the length of the JSON object or array at the
// start of s, or, when there is none, how far into s it looked and an
// error (io.ErrUnexpectedEOF when s ends inside the value). The end is
// the bracket that closes the first one (strings skipped), and the value
// is then checked whole.
func jsonValueEnd(s string) (int, error) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				if !json.Valid([]byte(s[:i+1])) {
					return i + 1, errNoValue
				}
				return i + 1, nil
			}
		}
	}
	return len(s), io.ErrUnexpectedEOF
}

// errNoValue is jsonValueEnd's answer for brackets that hold no JSON.
var errNoValue = errors.New("no JSON value")
