package jsonkey_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestEnd: after one decoded value only JSON whitespace may follow; a
// stray closing bracket, which dec.More passes, is refused at its offset.
func TestEnd(t *testing.T) {
	for _, c := range []struct {
		name, in string
		offset   int64 // -1: no error
	}{
		{"OK", `{"a":"x"}`, -1},
		{"OKWhitespace", "{\"a\":\"x\"} \t\r\n", -1},
		{"OKArray", `[1,2]`, -1},
		{"OKNumber", `12 `, -1},
		{"ErrBrace", `{"a":"x"}}`, 9},
		{"ErrBracket", `{"a":"x"}]`, 9},
		{"ErrBracketAfterSpace", `{"a":"x"}  ]`, 11},
		{"ErrArrayBracket", `[1]]`, 3},
		{"ErrSecondValue", `{"a":"x"} {}`, 10},
		{"ErrText", `{"a":"x"}x`, 9},
		{"ErrFormFeed", "{\"a\":\"x\"}\f", 9}, // not JSON whitespace
		{"ErrNBSP", "{\"a\":\"x\"}\u00a0", 9},
		{"ErrLongWhitespace", `{}` + strings.Repeat(" ", 5000) + `}`, 5002},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := bytes.NewReader([]byte(c.in))
			dec := json.NewDecoder(r)
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			err := jsonkey.End(dec, r)
			var te *jsonkey.TrailingError
			switch {
			case c.offset < 0 && err != nil:
				t.Fatalf("End = %v, want nil", err)
			case c.offset < 0:
			case !errors.As(err, &te):
				t.Fatalf("End = %v, want a *TrailingError", err)
			case te.Offset != c.offset || te.Byte != c.in[c.offset]:
				t.Fatalf("End at %d %q, want %d %q", te.Offset, te.Byte, c.offset, c.in[c.offset])
			}
		})
	}
	t.Run("Message", func(t *testing.T) {
		r := strings.NewReader(`{"a":"x"}}`)
		dec := json.NewDecoder(r)
		var v any
		_ = dec.Decode(&v)
		if got, want := jsonkey.End(dec, r).Error(), "unexpected data after the JSON value at byte 9"; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("ErrRead", func(t *testing.T) {
		boom := errors.New("boom")
		src := iotest.ErrReader(boom)
		dec := json.NewDecoder(strings.NewReader(`{}`))
		var v any
		_ = dec.Decode(&v)
		if err := jsonkey.End(dec, src); !errors.Is(err, boom) {
			t.Fatalf("End = %v, want %v", err, boom)
		}
	})
}

// TestTrailing: End over a whole text; a text that is no value, or is
// malformed inside its first value, is not Trailing's to report.
func TestTrailing(t *testing.T) {
	for in, want := range map[string]int64{
		`{"a":"x"}`:          -1,
		"[1] \n":             -1,
		`{"a":"x"}}`:         9,
		`[{"a":1}]]`:         9,
		`{"a":1} {}`:         8,
		`{"a":x}}`:           -1,
		`x`:                  -1,
		``:                   -1,
		`{"a":"x"}` + "\x00": 9,
	} {
		err := jsonkey.Trailing([]byte(in))
		var te *jsonkey.TrailingError
		switch {
		case want < 0 && err != nil:
			t.Errorf("Trailing(%q) = %v, want nil", in, err)
		case want >= 0 && (!errors.As(err, &te) || te.Offset != want):
			t.Errorf("Trailing(%q) = %v, want at byte %d", in, err, want)
		}
	}
}
