package jsonkey_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestSyntaxOffset: encoding/json's SyntaxError.Offset, from Unmarshal or
// a Decoder, made the offset of the byte at fault counted from 0, as
// TrailingError's and DeeperThan's; the text's length when it ends early.
func TestSyntaxOffset(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{`#`, 0},
		{`{"a":#}`, 5},
		{`{"a":1,]}`, 7},
		{"  \n[1 2]", 6},
		{`{"a":1}x`, 7}, // Unmarshal: "after top-level value"
		{`{"a":`, 5},    // Unmarshal: "unexpected end of JSON input", past the last byte
		{`[1,`, 3},
		{strings.Repeat("[", 10001), 10000}, // "exceeded max depth": the bracket of level 10,001
	} {
		var v any
		var se *json.SyntaxError
		if err := json.Unmarshal([]byte(c.in), &v); !errors.As(err, &se) {
			t.Fatalf("%.20q: Unmarshal %v, want a *json.SyntaxError", c.in, err)
		}
		if got := jsonkey.SyntaxOffset(se); got != c.want {
			t.Errorf("%.20q (%v): Unmarshal's offset %d, want %d", c.in, se, got, c.want)
		}
		if strings.Contains(se.Error(), "unexpected end") || strings.Contains(se.Error(), "after top-level") {
			continue // a Decoder reports these otherwise (io.ErrUnexpectedEOF; it stops after the value)
		}
		err := json.NewDecoder(bytes.NewReader([]byte(c.in))).Decode(&v)
		if !errors.As(err, &se) {
			t.Fatalf("%.20q: Decode %v, want a *json.SyntaxError", c.in, err)
		}
		if got := jsonkey.SyntaxOffset(se); got != c.want {
			t.Errorf("%.20q (%v): Decode's offset %d, want %d", c.in, se, got, c.want)
		}
	}
}
