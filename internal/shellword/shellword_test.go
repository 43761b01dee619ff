package shellword_test

import (
	"testing"

	"github.com/mnemo-go/mnemo/internal/shellword"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"mnemo-data", "mnemo-data"},
		{"/tmp/a_b/c.d:1@x%2B=y,z", "/tmp/a_b/c.d:1@x%2B=y,z"},
		{"", "''"},
		{"my dir", "'my dir'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a;rm -rf x", "'a;rm -rf x'"},
		{"é", "'é'"},
	} {
		if got := shellword.Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
