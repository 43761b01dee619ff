package jsonkey_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// encodedLenCases are JSON texts whose encoding differs from their text:
// whitespace, escapes of every kind, characters Marshal escapes, numbers
// as written.
var encodedLenCases = []string{
	`{}`, `{"a":1}`, ` { "a" : [ 1 , 2 ] , "b" : { } } `,
	`{"k":"caf\u00e9 \u4e2d \ud83d\ude00 \ud800 x\ud800\u0041"}`,
	`{"k":"\b\f\n\r\t\"\\\/ \u0001 \u001f \u2028\u2029 < > &"}`,
	"{\"k\":\"é 中 😀 \u2028 \u007f\"}",
	`{"n":[1e400, -0, 1.50, 12345678901234567890, true, false, null]}`,
	`{"\u006b\u0065\u0079":{"a":[[],[{}]],"b":"\\u0041"}}`,
}

// TestEncodedLen: EncodedLen of a JSON text is the length of Marshal of
// what it decodes to (UseNumber), as the engine measures metadata.
func TestEncodedLen(t *testing.T) {
	for _, c := range encodedLenCases {
		if got, want := jsonkey.EncodedLen([]byte(c)), marshalledLen(t, c); got != want {
			t.Errorf("EncodedLen(%s) = %d, want %d", c, got, want)
		}
	}
}

// FuzzEncodedLen: for any JSON object, EncodedLen agrees with Marshal.
func FuzzEncodedLen(f *testing.F) {
	for _, c := range encodedLenCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) || jsonkey.Text([]byte(s)) != nil {
			return
		}
		if _, _, rep := jsonkey.Repeated([]byte(s)); rep {
			return
		}
		if got, want := jsonkey.EncodedLen([]byte(s)), marshalledLen(t, s); got != want {
			t.Errorf("EncodedLen(%q) = %d, want %d", s, got, want)
		}
	})
}

func marshalledLen(t *testing.T, s string) int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := jsonkey.Marshal(v)
	if err != nil {
		t.Skip("not encodable:", err) // a json.Number Marshal refuses
	}
	return len(b)
}
