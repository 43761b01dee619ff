package jsonkey_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestNamedSyntax: a character past ASCII where encoding/json stopped is
// named whole with its code point, where encoding/json named its first
// byte as Latin-1; an ASCII character, a byte that starts no valid UTF-8
// character, and the end of the text keep encoding/json's words. The
// *json.SyntaxError stays reachable with errors.As.
func TestNamedSyntax(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"NoBreakSpace", "\u00a0", `invalid character '\u00a0' (U+00A0) looking for beginning of value`},
		{"EmSpace", `{"a":1,` + "\u2003}", `invalid character '\u2003' (U+2003) looking for beginning of object key string`},
		{"Letter", `{"a":é}`, `invalid character 'é' (U+00E9) looking for beginning of value`},
		{"Emoji", `[1,😀]`, `invalid character '😀' (U+1F600) looking for beginning of value`},
		{"ByteOrderMark", "\ufeff{}", `invalid character '\ufeff' (U+FEFF) looking for beginning of value`},
		{"ASCII", `{"a":x}`, `invalid character 'x' looking for beginning of value`},
		{"NotUTF8", "[\xff]", `invalid character 'ÿ' looking for beginning of value`},
		{"End", `{"a":`, `unexpected end of JSON input`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v any
			var se *json.SyntaxError
			if err := json.Unmarshal([]byte(c.in), &v); !errors.As(err, &se) {
				t.Fatalf("Unmarshal(%q): %v, want a *json.SyntaxError", c.in, err)
			}
			err := jsonkey.NamedSyntax([]byte(c.in), se)
			if got := err.Error(); got != c.want {
				t.Errorf("NamedSyntax(%q) = %q, want %q", c.in, got, c.want)
			}
			var found *json.SyntaxError
			if !errors.As(err, &found) || found != se {
				t.Errorf("NamedSyntax(%q): errors.As finds %v, want se", c.in, found)
			}
		})
	}
}
