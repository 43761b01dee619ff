package engine_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-go/mnemo/engine"
)

// FuzzToolCallArgumentsOf: the arguments rule of every path
// (engine.ToolCallArgumentsOf) gives, for any value, valid JSON that is
// an object ({} among them) or a string, which it maps to itself (so
// Append, mnemo serve and mnemo ingest agree on what they store, read
// once or twice), or a *ValidationError on "arguments"; a string's
// result is what ToolCallArguments reads in its text.
//
//	go test ./engine -run '^$' -fuzz FuzzToolCallArgumentsOf -fuzztime 30s
func FuzzToolCallArgumentsOf(f *testing.F) {
	for _, s := range []string{``, ` `, `null`, `{}`, `{"a":1}`, `{"a":1,"a":2}`, `""`, `"null"`, `" "`,
		`"{\"a\":1}"`, `"\ufeff{\"a\":1}"`, `"{\"a\":1,\"a\":2}"`, `"[1]"`, `"1"`, `"\"x\""`, `"{bad"`,
		`[]`, `[1]`, `1`, `-0.5e3`, `true`, `false`, `{bad`, "\"\xff\"", `"\u0000"`,
		`{"a":"\ud800"}`, `"\ud800"`, `"{\"a\":\"\\ud800\"}"`, `"{\"a\":\"\\ud83d\\ude00\"}"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		a, err := engine.ToolCallArgumentsOf(json.RawMessage(v))
		if err != nil {
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || ve.Field != "arguments" || ve.Index != -1 || !errors.Is(err, engine.ErrInvalidInput) {
				t.Fatalf("ToolCallArgumentsOf(%q): %v, want a *ValidationError on arguments", v, err)
			}
			return
		}
		if !json.Valid(a) || !utf8.Valid(a) {
			t.Fatalf("ToolCallArgumentsOf(%q) = %q, no valid JSON", v, a)
		}
		again, err := engine.ToolCallArgumentsOf(a)
		if err != nil || string(again) != string(a) {
			t.Fatalf("ToolCallArgumentsOf(%q) = %s, which it reads as %s, %v", v, a, again, err)
		}
		switch t0 := strings.TrimLeft(string(a), " \t\r\n"); t0[0] {
		case '{':
		case '"':
			var s string
			if err := json.Unmarshal(a, &s); err != nil {
				t.Fatal(err)
			}
			if got := engine.ToolCallArguments(s); string(got) != strings.TrimSpace(string(a)) && !sameString(got, s) {
				t.Fatalf("ToolCallArgumentsOf(%q) = %s, ToolCallArguments of its text %s", v, a, got)
			}
		default:
			t.Fatalf("ToolCallArgumentsOf(%q) = %s, neither an object nor a string", v, a)
		}
	})
}

// sameString reports whether a is a JSON string of text s.
func sameString(a json.RawMessage, s string) bool {
	var got string
	return json.Unmarshal(a, &got) == nil && got == s
}
