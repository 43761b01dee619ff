package engine

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// redactDocument redacts s, a valid JSON document (an object or an array:
// a tool result, tool-call arguments), value by value: each key and each
// string decoded, so the rules see real line breaks and no escapes (a
// secret written "sk\u002dproj-…" or "glc_ab\/cd…"); each scalar value
// again after its key ("key": value), so a value a key names as a
// credential is replaced ("password": "…", "password": 12345678), as is
// each one inside a list or an object such a key names (docWalk.under);
// and each number alone (docWalk.number). A string the rules change is encoded
// again in its place (without HTML escapes), a number replaced by the JSON
// string "[REDACTED]"; every other byte of s is kept, so a document
// holding no secret comes back as it was, and the result is JSON. Before,
// the rules ran over the JSON text, where a value running to the end of
// its line ("password: x1234\nother") ran to the end of the document.
func (r *PatternRedactor) redactDocument(s string) string {
	w := docWalk{r: r, s: s}
	cookies := strings.Contains(s, `"domain"`) && strings.Contains(s, `"path"`) // a cookie object's members (cookieObjects)
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '"':
			i = w.stringAt(i)
		case c == '-' || isDigit(c):
			end := numberEnd(s, i)
			w.number(i, end, "", false)
			i = end
		case c == '[':
			w.headerList(i)
			if cookies {
				w.cookieObjects(i)
			}
			i++
		default:
			i++
		}
	}
	if w.out == nil {
		return s
	}
	return string(append(w.out, s[w.last:]...))
}

// jsonDocument reports whether s begins, after blanks, like a JSON object
// or array (a look at its first bytes; redactDocument checks the rest).
func jsonDocument(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && (t[0] == '{' || t[0] == '[')
}

// docWalk is the state of redactDocument over s, a valid JSON document:
// out holds the result up to s[last:], which is still to copy.
type docWalk struct {
	r    *PatternRedactor
	s    string
	out  []byte
	last int
	// under holds the keys whose value, an array or an object, the walk
	// is inside and that hold a rule's trigger, innermost last: each
	// string and number inside is also tried after each of them, so a
	// credential the key names stays redacted in a list or an object
	// ({"password": ["…"]}, an http.Header's {"X-Api-Key": ["…"]}), as
	// the text pass redacted it.
	under []underKey
	// name is the string value of the last "name" or "key" member seen,
	// and nameEnd where it ends: a "value" member after it in the same
	// object is tried after that name, as a Kubernetes env entry, an HAR
	// header or a form field writes a credential:
	// {"name": "DB_PASSWORD", "value": "…"} (namedBy).
	name    string
	nameEnd int
	// pairs maps the start of a string that is a header field's value
	// in a list of header fields to the field's name (headerList).
	pairs map[int]string
	// cookies holds the start of each string that is a cookie's value
	// under a cookie key (cookieJar) or in a cookie object
	// (cookieObjects).
	cookies map[int]bool
}

// underKey is a key of docWalk.under and the index where its value ends.
type underKey struct {
	key string
	end int
}

// put replaces s[from:to] by repl; calls come in the order of s.
func (w *docWalk) put(from, to int, repl string) {
	w.out = append(append(w.out, w.s[w.last:from]...), repl...)
	w.last = to
}

// stringAt redacts the string opening at s[i]: an array element or a
// value, or a key and the scalar value after it. It returns the index
// after what it redacted.
func (w *docWalk) stringAt(i int) int {
	s := w.s
	end := jsonStringEnd(s, i) + 1
	colon := skipBlanks(s, end)
	if colon == len(s) || s[colon] != ':' {
		w.value(i, end, "", false)
		return end
	}
	key := decodeString(s[i:end])
	if red := w.r.redactText(key); red != key {
		w.put(i, end, marshalString(red))
	}
	v := skipBlanks(s, colon+1)
	key = w.namedBy(key, i)
	switch c := s[v]; {
	case c == '"':
		vend := jsonStringEnd(s, v) + 1
		w.value(v, vend, key, true)
		w.noteName(key, v, vend)
		return vend
	case c == '-' || isDigit(c):
		vend := numberEnd(s, v)
		w.number(v, vend, key, true)
		return vend
	case c == '{' || c == '[':
		if cookiesKey(key) {
			w.cookieJar(v)
		}
		if w.r.pf.named(marshalString(key) + ": ") {
			w.under = append(w.under, underKey{key, containerEnd(s, v)})
		}
	}
	return v
}

// noteName records the string s[from:to] when key names the member that
// names its sibling "value" (name, key, any case).
func (w *docWalk) noteName(key string, from, to int) {
	if strings.EqualFold(key, "name") || strings.EqualFold(key, "key") {
		w.name, w.nameEnd = decodeString(w.s[from:to]), to
	}
}

// namedBy returns the name a "value" key at index i stands for: the last
// noted name when it is a member of the same object (no brace between
// them, so a brace inside a string in between costs the pairing, never
// pairs across objects), else key itself.
func (w *docWalk) namedBy(key string, i int) string {
	if w.name == "" || !strings.EqualFold(key, "value") || strings.ContainsAny(w.s[w.nameEnd:i], "{}") {
		return key
	}
	return w.name
}

// outer returns the keys of w.under whose value holds index i, innermost
// last, dropping those whose value ended before it (the values nest, so
// the rest all hold i). A string or number inside is tried after each:
// before (red62), after the innermost only, and the default redactor and
// the same rules with no triggers disagreed on {"Auth":{"":{"":"X000Ol00"}}}
// (FuzzRedactPrefilter): without triggers the key "" is under too, and
// shadowed "Auth", whose pair "Auth": "X000Ol00" the auth-field rule
// replaces.
func (w *docWalk) outer(i int) []underKey {
	for len(w.under) > 0 && w.under[len(w.under)-1].end <= i {
		w.under = w.under[:len(w.under)-1]
	}
	return w.under
}

// value redacts the string s[from:to] decoded, and after its key when
// keyed (pairValue), and after each key of w.under it is inside; a
// cookie's value (w.cookies) is replaced whole (cookieValue), and a
// string under a cookie key read as a Cookie header's pairs
// (cookieString).
func (w *docWalk) value(from, to int, key string, keyed bool) {
	v := decodeString(w.s[from:to])
	red := w.r.redactText(v)
	if keyed {
		red = w.pairValue(key, red)
	}
	for _, k := range w.outer(from) {
		red = w.pairValue(k.key, red)
	}
	if name, ok := w.pairs[from]; ok {
		red = w.pairValue(name, red)
	}
	if w.cookies[from] && cookieValue(v) {
		red = RedactionMark
	} else if keyed && cookiesKey(key) {
		red = w.cookieString(key, red)
	}
	if red != v {
		w.put(from, to, marshalString(red))
	}
}

// pairValue is string v as the rules leave it after its key, "key": "v":
// a key naming a credential has them replace the value. Only a key that,
// quoted, holds a rule's trigger is tried (the pair costs a second pass), and a
// redaction that changed the key or ran past the value's closing quote is
// not taken (the value alone was redacted already).
func (w *docWalk) pairValue(key, v string) string {
	prefix := marshalString(key) + ": "
	if !w.r.pf.named(prefix) {
		return v
	}
	text := prefix + marshalString(v)
	red := w.r.redactText(text)
	if red == text || !strings.HasPrefix(red, prefix) {
		return v
	}
	var out string
	if json.Unmarshal([]byte(red[len(prefix):]), &out) != nil {
		return v
	}
	return out
}

// number redacts the number s[from:to]: the rules see it alone, its
// digits when it is a whole number written otherwise (wholeDigits) and,
// when keyed, after its key, and after the key of w.under it is inside; a
// number they change is replaced by the JSON string "[REDACTED]".
func (w *docWalk) number(from, to int, key string, keyed bool) {
	n := w.s[from:to]
	changed := w.r.redactText(n) != n
	if d, ok := wholeDigits(n); !changed && ok && d != n {
		changed = w.r.redactText(d) != d
	}
	if !changed && keyed {
		changed = w.keyedNumber(key, n)
	}
	for _, k := range w.outer(from) {
		changed = changed || w.keyedNumber(k.key, n)
	}
	if changed {
		w.put(from, to, `"`+RedactionMark+`"`)
	}
}

// keyedNumber reports whether the rules change number n after key,
// "key": n (only tried when the quoted key holds a rule's trigger).
func (w *docWalk) keyedNumber(key, n string) bool {
	prefix := marshalString(key) + ": "
	if !w.r.pf.named(prefix) {
		return false
	}
	text := prefix + n
	red := w.r.redactText(text)
	return red != text && strings.HasPrefix(red, prefix)
}

// wholeDigits returns the digits of JSON number n when its value is a
// whole number of 13 to 19 digits, however written: -4111111111111111
// (the sign dropped), 4111111111111111.0 (a float as Python writes it),
// 4.111111111111111e15. A number with a fraction (4111111111111111.5)
// is none, as in text.
func wholeDigits(n string) (string, bool) {
	n = strings.TrimPrefix(n, "-")
	mant, exp := n, 0
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		e, err := strconv.Atoi(n[i+1:])
		if err != nil || e < -40 || e > 40 {
			return "", false
		}
		mant, exp = n[:i], e
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	point := len(whole) + exp
	if point <= 0 || point > 19+len(digits) {
		return "", false
	}
	if point < len(digits) {
		if strings.Trim(digits[point:], "0") != "" {
			return "", false
		}
		digits = digits[:point]
	} else {
		digits += strings.Repeat("0", point-len(digits))
	}
	digits = strings.TrimLeft(digits, "0")
	return digits, 13 <= len(digits) && len(digits) <= 19
}

// decodeString is the JSON string quoted (with its quotes) decoded.
func decodeString(quoted string) string {
	if strings.IndexByte(quoted, '\\') < 0 {
		return quoted[1 : len(quoted)-1]
	}
	var v string
	if err := json.Unmarshal([]byte(quoted), &v); err != nil {
		return quoted[1 : len(quoted)-1]
	}
	return v
}

// marshalString is s as a JSON string, without HTML escapes.
func marshalString(s string) string {
	b, err := jsonkey.Marshal(s)
	if err != nil { // a string always encodes
		panic(err)
	}
	return string(b)
}

// jsonStringEnd returns the index of the quote that closes the JSON string
// opening at s[start] (s is valid JSON).
func jsonStringEnd(s string, start int) int {
	end := start + 1
	for ; s[end] != '"'; end++ {
		if s[end] == '\\' {
			end++
		}
	}
	return end
}

// containerEnd returns the index after the JSON object or array opening
// at s[start] (s is valid JSON).
func containerEnd(s string, start int) int {
	depth := 0
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = jsonStringEnd(s, i)
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// numberEnd returns the index after the JSON number starting at s[start].
func numberEnd(s string, start int) int {
	end := start + 1
	for end < len(s) && strings.IndexByte("0123456789.eE+-", s[end]) >= 0 {
		end++
	}
	return end
}

// skipBlanks returns the index of the first byte of s from i that is no
// JSON blank.
func skipBlanks(s string, i int) int {
	for i < len(s) && isJSONBlank(s[i]) {
		i++
	}
	return i
}

// blanksBefore returns the index of the last byte of s before i that is
// no JSON blank, or -1.
func blanksBefore(s string, i int) int {
	i--
	for i >= 0 && isJSONBlank(s[i]) {
		i--
	}
	return i
}

// isJSONBlank reports whether c is JSON's whitespace (RFC 8259 §2).
func isJSONBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
