package importer

import (
	"encoding/json"
	"testing"
)

// TestReplaceNULJSON: the \u0000 escapes of a JSON text, in strings and
// keys, and its NUL bytes become U+FFFD, counted; an escaped backslash
// before "u0000" is text, kept; other escapes are kept as written.
func TestReplaceNULJSON(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
	}{
		{`{"city":"Porto"}`, `{"city":"Porto"}`, 0},
		{`{"city":"Por\u0000to"}`, "{\"city\":\"Por\uFFFDto\"}", 1},
		{`{"ci\u0000ty":"\u0000\u0000"}`, "{\"ci\uFFFDty\":\"\uFFFD\uFFFD\"}", 3},
		{`{"path":"C:\\u0000"}`, `{"path":"C:\\u0000"}`, 0},
		{`{"path":"C:\\\u0000"}`, "{\"path\":\"C:\\\\\uFFFD\"}", 1},
		{`{"q":"\"\u0000\""}`, "{\"q\":\"\\\"\uFFFD\\\"\"}", 1},
		{`{"u":"\u00000"}`, "{\"u\":\"\uFFFD0\"}", 1},
		{`"a\u0000b"`, "\"a\uFFFDb\"", 1},
		{`{"deep":[{"x":["\u0000"]}]}`, "{\"deep\":[{\"x\":[\"\uFFFD\"]}]}", 1},
		{`{"tab":"\t\u0009"}`, `{"tab":"\t\u0009"}`, 0},
		{"{\"raw\":\"a\x00b\"}", "{\"raw\":\"a\uFFFDb\"}", 1},
	} {
		got, n := replaceNULJSON(json.RawMessage(tc.in))
		if string(got) != tc.want || n != tc.n {
			t.Errorf("replaceNULJSON(%s) = %s, %d; want %s, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}

// TestReplaceNULValue: metadata's strings and keys, at any depth, lose
// their NULs to U+FFFD, counted.
func TestReplaceNULValue(t *testing.T) {
	v := map[string]any{"a\x00": "b\x00c", "n": 1.0, "l": []any{"\x00", map[string]any{"k": "\x00\x00"}}}
	got, n := replaceNULValue(v)
	b, _ := json.Marshal(got)
	if want := "{\"a\uFFFD\":\"b\uFFFDc\",\"l\":[\"\uFFFD\",{\"k\":\"\uFFFD\uFFFD\"}],\"n\":1}"; string(b) != want || n != 5 {
		t.Errorf("replaceNULValue = %s, %d; want %s, 5", b, n, want)
	}
}

// FuzzReplaceNULJSON: for any valid JSON text, the result is valid JSON
// that decodes to the input's value with each U+0000 as U+FFFD, and the
// count is how many U+0000 the input decoded to.
func FuzzReplaceNULJSON(f *testing.F) {
	for _, s := range []string{`{"a":"\u0000"}`, `{"\u0000":1}`, `"\\u0000"`, `["\\\u0000", "\\\\u0000"]`, `{"a":"x"}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var in any
		if json.Unmarshal([]byte(s), &in) != nil {
			return
		}
		out, n := replaceNULJSON(json.RawMessage(s))
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("replaceNULJSON(%q) = %q: not JSON: %v", s, out, err)
		}
		wantV, wantN := replaceNULValue(in)
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(wantV)
		if string(a) != string(b) || n != wantN {
			t.Fatalf("replaceNULJSON(%q) = %q (%d); decodes to %s, want %s (%d)", s, out, n, a, b, wantN)
		}
		if _, left := replaceNULValue(got); left != 0 {
			t.Fatalf("replaceNULJSON(%q) left %d U+0000: %s", s, left, a)
		}
	})
}
