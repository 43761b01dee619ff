package engine

import (
	"reflect"
	"regexp"
	"sync"
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

// TestLinesOpAfter: the assignment rule is not searched on a line whose
// triggers have no '=' or ':' after the first one (a log line that names
// a key in passing, its timestamp's colons before it); before, every such
// line of a log was (BenchmarkRedactorMB's log-lines).
func TestLinesOpAfter(t *testing.T) {
	rules := DefaultRules()
	p := newPrefilter(rules)
	rule := -1
	for i, r := range rules {
		if r.Name == "assignment" {
			rule = i
		}
	}
	for _, tc := range []struct {
		text string
		want [][2]int
	}{
		{"08:40:01Z INFO rotated the api key for billing", nil},
		{"a=1 token\nok", nil},
		{"08:40:01 api key: abcd1234\n08:40:02 the token", [][2]int{{0, 26}}},
		{"x\n?q=token&password\ntoken=", [][2]int{{20, 26}}},
		{"Token\x00=", [][2]int{{0, 7}}},
		{"x\n/search?q=password%3Dhunter2x", [][2]int{{2, 31}}},
	} {
		if got := p.lines(tc.text, rule); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("lines(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestByLineLazy: a rule is searched line by line (prefilter.byLine)
// exactly when it has triggers and lineLocal says so, for every default
// rule, on a new prefilter and on one whose answers come from the
// process's lineLocals.
func TestByLineLazy(t *testing.T) {
	rules := DefaultRules()
	for round := range 2 {
		p := newPrefilter(rules)
		for i, r := range rules {
			want := !p.always.has(i) && lineLocal(r.Pattern)
			if got := p.byLine(i); got != want {
				t.Errorf("round %d: byLine(%s) = %v, want %v", round, r.Name, got, want)
			}
		}
	}
}

// TestRedactorFirstUseParsesNone: a new redactor's first Redact of text
// that names no secret parses no rule's pattern (byLine is found on a
// rule's first search): it allocates less than half of what parsing the
// patterns of the rules with triggers does. Before, newPrefilter parsed
// every one (lineLocal), 9,826 allocations and 3–8 ms
// (BenchmarkRedactorFirstUse).
func TestRedactorFirstUseParsesNone(t *testing.T) {
	rules := DefaultRules()
	p := newPrefilter(rules)
	parse := testing.AllocsPerRun(1, func() {
		for i, r := range rules {
			if !p.always.has(i) {
				lineLocal(r.Pattern)
			}
		}
	})
	first := testing.AllocsPerRun(1, func() {
		(&PatternRedactor{Rules: rules}).Redact("what did we decide about the deploy on thursday?")
	})
	if first >= parse/2 {
		t.Errorf("a new redactor's first Redact makes %v allocations; parsing the patterns makes %v", first, parse)
	}
}

// TestRedactorConcurrentFirstUse: goroutines that share a new redactor
// find its rules' byLine together (run with -race) and redact as one
// does alone.
func TestRedactorConcurrentFirstUse(t *testing.T) {
	const text = "08:40:01 api key: abcd1234\npassword=hunter2 and Bearer dGhpcyBpcyBhIHRva2Vu"
	want := DefaultRedactor().Redact(text)
	r := DefaultRedactor()
	got := make([]string, 4)
	var wg sync.WaitGroup
	for k := range got {
		wg.Go(func() { got[k] = r.Redact(text) })
	}
	wg.Wait()
	for k, g := range got {
		if g != want {
			t.Errorf("goroutine %d: Redact = %q, want %q", k, g, want)
		}
	}
}
