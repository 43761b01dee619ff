package engine

import (
	"regexp"
	"testing"
)

// TestLineLocal: a pattern is searched line by line only when no match
// can hold a line feed or be empty and no assertion reads the text's ends.
func TestLineLocal(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    bool
	}{
		{`password=\S+`, true}, {`(?i)token[ \t]*:[^\r\n]+`, true}, {`\bkey\b`, true}, {`(?m)^key: .+$`, true},
		{`x.`, true}, {`[^a\n]+`, true}, {`(?:ab|cd)e{2,}`, true},
		{`key\s+\S+`, false}, {`[^a]+`, false}, {`(?s)x.`, false}, {`a\nb`, false}, {`[\s\S]`, false},
		{`^key`, false}, {`key$`, false}, {`\Akey`, false}, {`key\z`, false}, {`(?:^|\W)key`, false},
		{`a*`, false}, {`(?:key|)`, false}, {`(?:a?b?)`, false}, {`x{0,3}`, false},
	} {
		if got := lineLocal(regexp.MustCompile(tc.pattern)); got != tc.want {
			t.Errorf("lineLocal(%s) = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

// TestLineLocalRules: the assignment rule, the costliest where it runs,
// is searched line by line; a key block, which spans lines, and the
// vendor rules, which read the text's start (leftEdge), are not.
func TestLineLocalRules(t *testing.T) {
	want := map[string]bool{"assignment": true, "private-key": false, "jwt": false, "github-token": false}
	for _, r := range DefaultRules() {
		if w, ok := want[r.Name]; ok && lineLocal(r.Pattern) != w {
			t.Errorf("lineLocal(%s) = %v, want %v", r.Name, !w, w)
		}
	}
}
