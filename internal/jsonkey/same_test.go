package jsonkey_test

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestSame: the same value spelled otherwise is Same (escapes, white
// space); other values, numbers written otherwise, members in another
// order and text that is no JSON are not.
func TestSame(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"q":"x"}`, `{"q":"\u0078"}`, true},
		{`{"q":"<b> & x"}`, `{ "q" : "\u003cb\u003e \u0026 x" }`, true},
		{"{\"q\":\"a\u2028b\"}", `{"q":"a\u2028b"}`, true},
		{`"a/b"`, `"a\/b"`, true},
		{`[1,{"a":null,"b":[true]}]`, `[1, {"a": null, "b": [true]}]`, true},
		{`{"\u0061":1}`, `{"a":1}`, true},
		{`{"q":"x"}`, `{"q":"y"}`, false},
		{`{"n":1}`, `{"n":1.0}`, false},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`["a"]`, `{"a":1}`, false},
		{`{"a":1`, `{"a":1}`, false},
		{`{"a":1}{}`, `{"a":1}`, false},
		{`not json`, `not json`, true},
	} {
		if got := jsonkey.Same([]byte(tc.a), []byte(tc.b)); got != tc.same {
			t.Errorf("Same(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if got := jsonkey.Same([]byte(tc.b), []byte(tc.a)); got != tc.same {
			t.Errorf("Same(%s, %s) = %v, want %v", tc.b, tc.a, got, tc.same)
		}
	}
}

// TestMarshal: Marshal keeps "<", ">" and "&" (in a string and in a
// json.RawMessage) and a json.RawMessage's U+2028; a Go string's U+2028
// is escaped, as json.Marshal does.
func TestMarshal(t *testing.T) {
	v := struct {
		S string          `json:"s"`
		R json.RawMessage `json:"r"`
	}{"<a> & \u2028", json.RawMessage("{\"q\": \"<b> & \u2028\"}")}
	b, err := jsonkey.Marshal(v)
	if want := "{\"s\":\"<a> & \\u2028\",\"r\":{\"q\":\"<b> & \u2028\"}}"; err != nil || string(b) != want {
		t.Errorf("Marshal = %s, %v; want %s", b, err, want)
	}
}
