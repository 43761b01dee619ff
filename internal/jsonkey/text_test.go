package jsonkey_test

import (
	"errors"
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestText: a JSON file that begins with a byte-order mark, or holds a
// byte that is not UTF-8, is refused at that byte; UTF-8 text, U+FFFD
// itself and a byte-order mark past the start (inside a string) pass.
func TestText(t *testing.T) {
	for _, c := range []struct {
		name, in string
		offset   int64 // -1: no error
		bom      bool
	}{
		{"OK", `{"a":"café"}`, -1, false},
		{"OKReplacementChar", "{\"a\":\"\uFFFD\"}", -1, false},
		{"OKMarkInString", "{\"a\":\"\uFEFF\"}", -1, false},
		{"ErrBOM", "\uFEFF{\"a\":1}", 0, true},
		{"ErrLatin1", "{\"a\":\"caf\xe9\"}", 9, false},
		{"ErrTruncatedRune", "{\"a\":\"\xe2\x82\"}", 6, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := jsonkey.Text([]byte(c.in))
			var te *jsonkey.TextError
			switch {
			case c.offset < 0 && err != nil:
				t.Fatalf("%q: %v, want nil", c.in, err)
			case c.offset >= 0 && (!errors.As(err, &te) || te.Offset != c.offset || te.BOM != c.bom):
				t.Fatalf("%q: %#v, want offset %d, BOM %v", c.in, err, c.offset, c.bom)
			}
		})
	}
}
