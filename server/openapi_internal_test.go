package server

import (
	"encoding/json"
	"testing"
)

// TestUnescapeHTML: the HTML escapes of JSON text are written as their
// characters, and the text keeps its value; an escaped backslash followed
// by "u003c" is not an escape and is kept.
func TestUnescapeHTML(t *testing.T) {
	for in, want := range map[string]string{
		`"a \u003cb\u003e \u0026 c"`: `"a <b> & c"`,
		`"\\u003c"`:                  `"\\u003c"`,
		`"\\\u003c"`:                 `"\\<"`,
		`"\u0041 \"q\" \u003c"`:      `"\u0041 \"q\" <"`,
		`"\u003`:                     `"\u003`,
	} {
		if got := string(unescapeHTML([]byte(in))); got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
		var a, b any
		if json.Unmarshal([]byte(in), &a) == nil && (json.Unmarshal([]byte(want), &b) != nil || a != b) {
			t.Errorf("unescapeHTML(%s): %v, want the value %v", in, b, a)
		}
	}
}
