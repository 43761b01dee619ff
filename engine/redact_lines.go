package engine

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// lineLocal reports whether every match of re lies inside one line and is
// found there as in the whole text: no match can hold a line feed or be
// empty, and re has no assertion a line's ends would change (^ and $
// without (?m), \A, \z). (?m)^, (?m)$, \b and \B read the same at a line's
// ends as at the text's, a line feed being no word character. The regexp
// then finds, on each line alone, the matches it finds there in the text.
func lineLocal(re *regexp.Regexp) bool {
	p, err := syntax.Parse(re.String(), syntax.Perl)
	return err == nil && !holdsLineFeed(p) && !mayBeEmpty(p)
}

// holdsLineFeed reports whether a match of re may hold a line feed, or re
// has a text anchor.
func holdsLineFeed(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpBeginText, syntax.OpEndText:
		return true
	case syntax.OpLiteral:
		return strings.ContainsRune(string(re.Rune), '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if holdsLineFeed(sub) {
			return true
		}
	}
	return false
}

// mayBeEmpty reports whether re may match the empty text.
func mayBeEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return mayBeEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || mayBeEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !mayBeEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if mayBeEmpty(sub) {
				return true
			}
		}
		return false
	case syntax.OpNoMatch:
		return false
	}
	return true // empty match, assertions, star, quest
}

// lines returns the spans [start, end) of the lines of s (cut at each
// line feed, which no span holds) that hold a trigger of rule and that
// the rule's lineMay, if any, accepts, in order: where a lineLocal rule
// whose matches all hold a trigger may match.
func (p *prefilter) lines(s string, rule int) [][2]int {
	var spans [][2]int
	may := p.lineMay[rule]
	for i := 1; i < len(s); i++ {
		g := p.pair[uint16(lowerByte[s[i-1]])<<8|uint16(lowerByte[s[i]])]
		if g == 0 || !p.startsTrigger(g-1, rule, s[i+1:]) {
			continue
		}
		start := strings.LastIndexByte(s[:i], '\n') + 1
		end := len(s)
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			end = i + j
		}
		if may == nil || may(s[start:end], i-1-start) {
			spans = append(spans, [2]int{start, end})
		}
		i = end + 1 // the loop's i++ moves past the line feed: the next line's first pair
	}
	return spans
}

// startsTrigger reports whether a trigger of rule in group g goes on with
// rest.
func (p *prefilter) startsTrigger(g uint16, rule int, rest string) bool {
	for _, t := range p.groups[g] {
		if t.rule == rule && hasLowerPrefix(rest, t.rest) {
			return true
		}
	}
	return false
}

// spans returns how rule's matches are searched in a text holding none of
// the runes (?i) folds to ASCII: on the lines holding its triggers, for a
// lineLocal rule (nil, the whole text, for another). A rule's matches all
// hold a trigger (Rule.Triggers), and a lineLocal rule's lie inside one
// line: a line without a trigger has none. The assignment rule costs
// about 1 µs a byte where it runs (Go's NFA: no literal prefix, every
// credential name tried at every byte); a tool result of many lines that
// names a token once is now searched on that line only.
func (p *prefilter) spans(rule int) func(string) [][2]int {
	if !p.byLine(rule) {
		return nil
	}
	return func(s string) [][2]int { return p.lines(s, rule) }
}

// byLine reports whether rule is searched only on the lines holding its
// triggers: it has triggers and its pattern is lineLocal. That is found
// on the rule's first search, and kept (local), as parsing every
// pattern again took a new redactor 2.8–4.3 ms, on its first Redact,
// whichever rules the text asked for (fu73).
func (p *prefilter) byLine(rule int) bool {
	switch p.local[rule].Load() {
	case localYes:
		return true
	case localNo:
		return false
	}
	v := uint32(localNo)
	if re := p.patterns[rule]; re != nil && lineLocalOf(re) {
		v = localYes
	}
	p.local[rule].Store(v) // a concurrent search finds the same
	return v == localYes
}

// The values of prefilter.local: not yet known (0), lineLocal or not.
const (
	localYes = 1 + iota
	localNo
)

// lineLocals are lineLocal's answers by expression, shared by the
// redactors of a process: each engine's redactor holds copies of the
// same default rules (DefaultRules), whose patterns are parsed once.
var lineLocals sync.Map // expression (string) → bool

// lineLocalOf is lineLocal(re), parsed once a process for each
// expression.
func lineLocalOf(re *regexp.Regexp) bool {
	if v, ok := lineLocals.Load(re.String()); ok {
		return v.(bool)
	}
	v := lineLocal(re)
	lineLocals.Store(re.String(), v)
	return v
}
