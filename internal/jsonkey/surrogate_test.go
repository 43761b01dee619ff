package jsonkey

import "testing"

// TestLoneSurrogate: the first \u escape of half a UTF-16 surrogate pair
// is found with its offset; a whole pair, an escaped backslash before
// "ud800" and a malformed escape are not one.
func TestLoneSurrogate(t *testing.T) {
	for _, c := range []struct {
		in    string
		off   int
		r     rune
		found bool
	}{
		{`{"a":"x"}`, 0, 0, false},
		{`"\ud83d\ude00"`, 0, 0, false},
		{`"\\ud800"`, 0, 0, false},
		{`"\u12"`, 0, 0, false},
		{`"\ud800"`, 1, 0xd800, true},
		{`"x\udc00"`, 2, 0xdc00, true},
		{`"\ud800\u0041"`, 1, 0xd800, true},
		{`"\ud800\ud800\udc00"`, 1, 0xd800, true},
		{`{"a":"\uD83D"}`, 6, 0xd83d, true},
		{`"\\\udfff"`, 3, 0xdfff, true},
	} {
		off, r, found := LoneSurrogate([]byte(c.in))
		if off != c.off || r != c.r || found != c.found {
			t.Errorf("LoneSurrogate(%s) = %d, %U, %v; want %d, %U, %v", c.in, off, r, found, c.off, c.r, c.found)
		}
	}
}
