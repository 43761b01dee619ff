package jsonkey

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Same reports whether the JSON texts a and b hold the same value, token
// by token: the same members in the same order (a key given twice counts
// twice), strings by what they decode to ("\u0078" is "x", "\u003c" is
// "<"), numbers digit for digit as written (1.0 is not 1), white space
// between tokens ignored. It is how a re-sent text is told from another
// one when the bytes differ: encoding/json's Marshal stored "<", ">" and
// "&" as \u003c, \u003e and \u0026. Text that is no valid JSON is Same
// only as the same bytes.
func Same(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if !json.Valid(a) || !json.Valid(b) {
		return false
	}
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	for {
		ta, errA := da.Token()
		tb, errB := db.Token()
		if errors.Is(errA, io.EOF) || errors.Is(errB, io.EOF) {
			return errors.Is(errA, io.EOF) && errors.Is(errB, io.EOF)
		}
		if errA != nil || errB != nil || ta != tb {
			return false
		}
	}
}

// Marshal is json.Marshal without its HTML escaping: "<", ">" and "&" in
// strings, and in a json.RawMessage's text, stay as they are (Marshal
// writes \u003c, \u003e and \u0026), so a stored JSON text keeps what it
// was given and the model reads it so. Like Marshal it writes U+2028 and
// U+2029 in a Go string as \u2028 and \u2029 (a json.RawMessage keeps
// them). The result is compact, with no trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
