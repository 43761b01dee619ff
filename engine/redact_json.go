package engine

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// redactJSON redacts a JSON document (tool-call arguments, metadata, a
// schema-mode working memory) and returns valid JSON. The text redaction of
// the whole document is kept when it is still valid JSON (the rules keep
// quotes around a replaced quoted value); otherwise the document is walked
// and each string is redacted alone, and a value whose "key": value pair
// the redactor changes is replaced whole by RedactionMark (a number after
// "password", say), and each key is redacted too (redactKey: made unique,
// the walk's keys sorted). The walk is also taken when the text redaction
// made an object repeat a key (two secrets used as keys), which the text
// redaction alone left as {"[REDACTED]":1,"[REDACTED]":2}; and before,
// the walk left keys as they were. Input that is not JSON is returned
// unchanged.
func redactJSON(r Redactor, b []byte) []byte {
	red := r.Redact(string(b))
	if red == string(b) {
		return b
	}
	if json.Valid([]byte(red)) && !newRepeat(b, []byte(red)) {
		return []byte(red)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b
	}
	out, err := jsonkey.Marshal(redactValue(r, v))
	if err != nil {
		return b
	}
	return out
}

// redactValue redacts every string in v, every value whose key marks it
// as a secret, and every key (redactKey).
func redactValue(r Redactor, v any) any {
	switch t := v.(type) {
	case string:
		return r.Redact(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) { // sorted: a key's suffix is the same every time
			x := t[k]
			if secretPair(r, k, x) {
				x = RedactionMark
			} else {
				x = redactValue(r, x)
			}
			out[redactKey(r, k, t, out)] = x
		}
		return out
	case []any:
		for i, x := range t {
			t[i] = redactValue(r, x)
		}
	}
	return v
}

// secretPair reports whether the redactor changes the pair "k": x (a scalar)
// while it leaves the value alone: the key names a secret.
func secretPair(r Redactor, k string, x any) bool {
	switch x.(type) {
	case map[string]any, []any, nil, bool:
		return false
	}
	val, err := jsonkey.Marshal(x)
	if err != nil {
		return false
	}
	key, _ := jsonkey.Marshal(k)
	pair := string(key) + ": " + string(val)
	red := r.Redact(pair)
	if red == pair {
		return false
	}
	s, isString := x.(string)
	if !isString {
		return true
	}
	// Changed only where the value alone changes: a secret inside an
	// ordinary field, not a field that names a secret. The value is
	// compared both redacted as a string and redacted as JSON text: in
	// the text, a rule whose value runs to the end of the line (password:
	// …) also takes the string's closing quote, and the field
	// ("content": "db:\n  password: x\n  host: h") is no secret for that.
	alone, err := jsonkey.Marshal(r.Redact(s))
	if err != nil {
		return true
	}
	prefix := string(key) + ": "
	return red != prefix+string(alone) && red != prefix+r.Redact(string(val))
}

// redactKey is key k of object t redacted, made unique in t and in out
// (the keys taken so far): two keys that are secrets became the same
// RedactionMark, and an object repeating a key is one JSON readers
// disagree on (and Append refuses the same arguments sent again), so the
// second is "[REDACTED] 2", the third "[REDACTED] 3", by the keys' order.
func redactKey(r Redactor, k string, t, out map[string]any) string {
	nk := r.Redact(k)
	if nk == k {
		return k
	}
	for i, c := 2, nk; ; i++ {
		if _, inOut := out[c]; !inOut {
			if _, inT := t[c]; !inT {
				return c
			}
		}
		c = nk + " " + strconv.Itoa(i)
	}
}

// newRepeat reports whether red, the text redaction of JSON document b,
// repeats a key in an object where b does not: two secrets used as keys
// redacted alike. A document that repeated a key already keeps the text
// redaction (Append refuses it for that).
func newRepeat(b, red []byte) bool {
	_, _, rep := jsonkey.Repeated(red)
	if !rep {
		return false
	}
	_, _, before := jsonkey.Repeated(b)
	return !before
}
