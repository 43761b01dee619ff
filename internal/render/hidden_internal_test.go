package render

import (
	"testing"
	"unicode"
)

// TestMayEscapeEveryRune: mayEscape's ASCII shortcut reports what the
// Hidden and Control tests and a carriage return do, for every character.
func TestMayEscapeEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := mayEscape(r), r == '\r' || Hidden(r) || Control(r); got != want {
			t.Errorf("mayEscape(%U) = %v, want %v", r, got, want)
		}
	}
}
