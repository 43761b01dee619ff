package engine

import (
	"bytes"
	"encoding/json"
)

// redactJSON redacts a JSON document (tool-call arguments, metadata, a
// schema-mode working memory) and returns valid JSON. The text redaction of
// the whole document is kept when it is still valid JSON (the rules keep
// quotes around a replaced quoted value); otherwise the document is walked
// and each string is redacted alone, and a value whose "key": value pair
// the redactor changes is replaced whole by RedactionMark (a number after
// "password", say). Input that is not JSON is returned unchanged.
func redactJSON(r Redactor, b []byte) []byte {
	red := r.Redact(string(b))
	if red == string(b) {
		return b
	}
	if json.Valid([]byte(red)) {
		return []byte(red)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b
	}
	out, err := marshalNoEscape(redactValue(r, v))
	if err != nil {
		return b
	}
	return out
}

// redactValue redacts every string in v, and every value whose key marks it
// as a secret.
func redactValue(r Redactor, v any) any {
	switch t := v.(type) {
	case string:
		return r.Redact(t)
	case map[string]any:
		for k, x := range t {
			if secretPair(r, k, x) {
				t[k] = RedactionMark
				continue
			}
			t[k] = redactValue(r, x)
		}
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
	val, err := marshalNoEscape(x)
	if err != nil {
		return false
	}
	key, _ := marshalNoEscape(k)
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
	// ordinary field, not a field that names a secret.
	alone, err := marshalNoEscape(r.Redact(s))
	return err != nil || red != string(key)+": "+string(alone)
}

// marshalNoEscape encodes v as compact JSON without HTML escaping.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
