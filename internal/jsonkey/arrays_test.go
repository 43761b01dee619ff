package jsonkey

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

var testBounds = map[string]int{"messages": 3, "messages[].toolCalls": 2, "list[]": 1}

func TestLongArray(t *testing.T) {
	for _, c := range []struct {
		data, path string
		n          int
	}{
		{`{"messages":[{},{},{}]}`, "", 0},
		{`{"messages":[{},{},{},{}]}`, "messages", 4},
		{`{"messages":[1,"a,]",[1,2],{"x":[1,2,3]}, -1.5e3 ]}`, "messages", 5},
		{`{"messages":[{"toolCalls":[{},{}]},{"toolCalls":[{},"]",{}]}]}`, "messages[1].toolCalls", 3},
		{`{"messages":[{"toolCalls":[1,2,3]}],"messages2":[1,2,3,4]}`, "messages[0].toolCalls", 3},
		{`{"\u006dessages":[1,2,3,4]}`, "messages", 4},
		{`{"Messages":[1,2,3,4]}`, "", 0},
		{`{"metadata":{"messages":[1,2,3,4]}}`, "", 0},
		{`{"messages":[{"metadata":{"toolCalls":[1,2,3]}}]}`, "", 0},
		{`{"list":[[1],[1,2]]}`, "list[1]", 2},
		{`{"list":[[1],[1]],"messages":[[],[],[],[],[]]}`, "messages", 5},
		{`[{"messages":[1,2,3,4]}]`, "", 0},
		{`{"messages":[1,2,3,4]`, "", 0}, // not JSON
		{`{"messages":[[[[1,2,3]]],{"a":"}"},"x","y"]}`, "messages", 4},
	} {
		if path, n := LongArray([]byte(c.data), testBounds); path != c.path || n != c.n {
			t.Errorf("LongArray(%s) = %q, %d; want %q, %d", c.data, path, n, c.path, c.n)
		}
	}
}

// TestLongArrayMillion: the count of a million elements is exact and its
// path found without decoding them.
func TestLongArrayMillion(t *testing.T) {
	data := `{"messages":[` + strings.TrimSuffix(strings.Repeat("{},", 1000000), ",") + `]}`
	if path, n := LongArray([]byte(data), map[string]int{"messages": 1000}); path != "messages" || n != 1000000 {
		t.Fatalf("got %q, %d", path, n)
	}
}

// FuzzLongArray: whatever the input, LongArray does not panic, and what
// it reports is an array over its bound that a decoding walk finds too;
// it reports one whenever the walk finds one.
func FuzzLongArray(f *testing.F) {
	for _, s := range []string{`{"messages":[{},{},{},{}]}`, `{"messages":[{"toolCalls":[1,2,3]}]}`, `{"list":[[1,2]]}`, `[]`, `{"a":"\""}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, n := LongArray([]byte(s), testBounds)
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			if path != "" {
				t.Fatalf("not JSON, got %q", path)
			}
			return
		}
		over := map[string]int{}
		overBound(v, "", "", over)
		if got, ok := over[path]; (path == "") != (len(over) == 0) || (path != "" && (!ok || got != n)) {
			t.Fatalf("LongArray(%s) = %q, %d; a decoding walk finds %v", s, path, n, over)
		}
	})
}

// overBound records in over every array of v (at path, of shape shape)
// over its testBounds bound.
func overBound(v any, path, shape string, over map[string]int) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			overBound(e, Join(path, k), Join(shape, k), over)
		}
	case []any:
		if b, ok := testBounds[shape]; ok && len(x) > b {
			over[path] = len(x)
		}
		for i, e := range x {
			overBound(e, fmt.Sprintf("%s[%d]", path, i), shape+"[]", over)
		}
	}
}
