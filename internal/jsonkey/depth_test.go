package jsonkey_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
)

// TestDeeperThan: the offset of the bracket that opens one level past max,
// outside strings (brackets in a string, escaped quotes included, do not
// count), on text that need not be valid JSON.
func TestDeeperThan(t *testing.T) {
	for _, c := range []struct {
		name   string
		data   string
		max    int
		offset int64
		ok     bool
	}{
		{"Flat", `{"a":1}`, 1, 0, false},
		{"AtMax", `{"a":[[1]]}`, 3, 0, false},
		{"PastMax", `{"a":[[1]]}`, 2, 6, true},
		{"Siblings", `[[],[],[[]]]`, 2, 8, true},
		{"InString", `{"a":"[[[[{{{{"}`, 1, 0, false},
		{"EscapedQuote", `{"a":"\"[[[["}`, 1, 0, false},
		{"EscapedBackslash", `{"a":"\\"}[`, 1, 0, false},
		{"EscapedBackslashThenOpen", `["\\",[`, 1, 6, true},
		{"UnbalancedClose", `]]]][[`, 1, 5, true},
		{"Unclosed", `[[[`, 2, 2, true},
		{"Empty", ``, 0, 0, false},
		{"ZeroMax", `1`, 0, 0, false},
		{"ZeroMaxArray", `[1]`, 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if off, ok := jsonkey.DeeperThan([]byte(c.data), c.max); off != c.offset || ok != c.ok {
				t.Fatalf("DeeperThan(%q, %d) = %d, %v; want %d, %v", c.data, c.max, off, ok, c.offset, c.ok)
			}
		})
	}
}

// TestMaxDepthIsEncodingJSONs: encoding/json reads a value nested
// MaxDepth levels and refuses one level more as too deep, where
// DeeperThan(data, MaxDepth) finds it: the limit the API names is the one
// its decoder applies.
func TestMaxDepthIsEncodingJSONs(t *testing.T) {
	for _, depth := range []int{jsonkey.MaxDepth, jsonkey.MaxDepth + 1} {
		data := []byte(`{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
		err := json.Unmarshal(data, new(any))
		var se *json.SyntaxError
		tooDeep := errors.As(err, &se) && strings.Contains(se.Error(), "exceeded max depth")
		_, deeper := jsonkey.DeeperThan(data, jsonkey.MaxDepth)
		if want := depth > jsonkey.MaxDepth; tooDeep != want || deeper != want || (!want && err != nil) {
			t.Errorf("depth %d: encoding/json %v, DeeperThan %v; want too deep = %v", depth, err, deeper, want)
		}
	}
}
