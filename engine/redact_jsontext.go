package engine

import (
	"encoding/json"
	"strings"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// redactJSONStrings redacts, value by value, the strings of s that hold an
// escape when s is a JSON document (an object or an array): a secret
// written "a\nAKIA…", "sk\u002dproj-…" or "glc_ab\/cd…" in JSON text is
// one the rules see only decoded. Each string the rules change decoded is
// encoded again in its place (without HTML escapes); every other byte of s
// is kept, so a document holding no secret comes back as it was. Any other
// text costs a look at its first bytes, a JSON document without a
// backslash one byte search.
func (r *PatternRedactor) redactJSONStrings(s string) string {
	if !escapedJSON(s) {
		return s
	}
	var out []byte
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		end, escaped := jsonStringEnd(s, i)
		if escaped {
			if red, ok := r.redactQuoted(s[i : end+1]); ok {
				out = append(append(out, s[last:i]...), red...)
				last = end + 1
			}
		}
		i = end
	}
	if out == nil {
		return s
	}
	return string(append(out, s[last:]...))
}

// escapedJSON reports whether s is a JSON document, an object or an array
// (after blanks), that holds a backslash.
func escapedJSON(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || (t[0] != '{' && t[0] != '[') || strings.IndexByte(t, '\\') < 0 {
		return false
	}
	return json.Valid([]byte(s))
}

// jsonStringEnd returns the index of the quote that closes the JSON string
// opening at s[start] (s is valid JSON), and whether the string holds an
// escape.
func jsonStringEnd(s string, start int) (end int, escaped bool) {
	for end = start + 1; s[end] != '"'; end++ {
		if s[end] == '\\' {
			escaped = true
			end++
		}
	}
	return end, escaped
}

// redactQuoted decodes quoted, a JSON string with its quotes, redacts it
// and returns it encoded again, and whether the rules changed it.
func (r *PatternRedactor) redactQuoted(quoted string) ([]byte, bool) {
	var v string
	if err := json.Unmarshal([]byte(quoted), &v); err != nil {
		return nil, false
	}
	red := r.redactText(v)
	if red == v {
		return nil, false
	}
	b, err := jsonkey.Marshal(red)
	if err != nil {
		return nil, false
	}
	return b, true
}
