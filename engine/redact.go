package engine

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// Redactor removes secrets from text before it is stored. Implementations
// must be safe for concurrent use and deterministic (the same input gives the
// same output), since idempotent Append compares redacted content.
type Redactor interface {
	Redact(s string) string
}

// RedactorFunc adapts a function to Redactor.
type RedactorFunc func(string) string

// Redact returns f(s), the redacted text.
func (f RedactorFunc) Redact(s string) string { return f(s) }

// NoRedaction stores text unchanged.
var NoRedaction Redactor = RedactorFunc(func(s string) string { return s })

// RedactionMark replaces a secret.
const RedactionMark = "[REDACTED]"

// Rule is one redaction rule: every match of Pattern is replaced by
// Replacement, which may refer to submatches as in regexp.Expand ("${1}").
//
// Triggers, when set, is a cheap prefilter: the rule runs only when the
// text, with ASCII letters lowercased, contains at least one of them. Every
// match of Pattern must contain one of the Triggers in lowercase, or the
// rule would miss it; nil means the rule always runs. A trigger must be at
// least 2 bytes long (a shorter one disables the prefilter for its rule).
// The prefilter exists because the regexes cost about 17 % of an Append on
// ordinary text that holds no secret (CPU profile of `mnemo bench`,
// BENCHMARKS.md).
//
// Verify, when set, is asked about each match (the whole matched text); a
// match it rejects is left as it is. It keeps look-alikes out where a
// regular expression cannot (a decoded value, a word with no digit).
type Rule struct {
	// Name identifies the rule, e.g. "jwt".
	Name string
	// Pattern matches what the rule replaces.
	Pattern *regexp.Regexp
	// Replacement replaces each match (regexp.Expand syntax: $1 keeps a group).
	Replacement string
	// Triggers prefilter the rule (see the type's doc); nil: always run.
	Triggers []string
	// Verify, when not nil, keeps a match it returns false for (see the type's doc).
	Verify func(match string) bool

	// may, when not nil, is a cheap test that s may hold a match (a
	// default rule's own prefilter: cardRule's digit run).
	may func(s string) bool
	// again: apply the rule again after a change, as a match may take the
	// '_' that begins the next one (a vendor rule's rightEdge:
	// AKIA…_AKIA…); each pass replaces a token, so the passes end.
	again bool
	// verifyIn, when not nil, is asked about each match Verify took, with
	// the text around it (s and the match's submatch indexes); a match it
	// rejects is left as it is (a name whose meaning depends on the bytes
	// before the match: PWD, not DB_PWD).
	verifyIn func(s string, m []int) bool
	// rewrite, when not nil, gives a verified match's replacement in
	// place of Replacement (a rule that replaces several parts of its
	// match: the items of a YAML list).
	rewrite func(match string) string
	// lineMay, when not nil, is a cheap test that a line holding a
	// trigger of a lineLocal rule may hold a match (prefilter.lines):
	// line is the line without its line feed, at the offset of its first
	// trigger of the rule. A line it rejects is not searched.
	lineMay func(line string, at int) bool
	// within, when not nil, gives the offset in s of the part of a match
	// Verify or verifyIn rejected that is searched again (verified), given
	// the match's submatch indexes; an offset outside the match: none.
	within func(s string, m []int) int
	// cut, when not nil, may end a match before its end, before Verify
	// sees it (a value in a quoted string ends at its closing quote:
	// stringEnd): given the match's submatch indexes, it returns the new
	// end (-1: no match) and where the text after it is searched again
	// (quote), as a text of its own, up to the match's old end; both are
	// m[1] for a match that stays as it is. The matches of one search
	// share a quoteScan of s.
	cut func(s string, m []int, qs *quoteScan) (quote, end int)
	// rawNamed, when not nil, has the part within gives read
	// percent-decoded too (url.QueryUnescape: a query value written
	// ?q=password%3Dhunter2); a change found there is made in the raw
	// text when rawNamed accepts the raw text from its match's start to
	// the change (the name written there as is, holding a trigger, as the
	// prefilter wants: it reads the raw text).
	rawNamed func(raw string) bool
}

// apply replaces the verified matches of r in s. spans, when not nil,
// gives the parts of a text outside which r has no match (prefilter.lines),
// and only those are searched.
func (r *Rule) apply(s string, spans func(string) [][2]int) string {
	out := r.applyOnce(s, spans)
	for r.again && out != s {
		s, out = out, r.applyOnce(out, spans)
	}
	return out
}

// applyOnce replaces the verified matches of r in s, in one pass.
func (r *Rule) applyOnce(s string, spans func(string) [][2]int) string {
	if r.may != nil && !r.may(s) {
		return s
	}
	if spans == nil && r.Verify == nil && r.verifyIn == nil && r.rewrite == nil && r.cut == nil {
		return r.Pattern.ReplaceAllString(s, r.Replacement)
	}
	var out []byte
	last := 0
	for _, e := range r.verified(s, r.matches(s, spans), maxCuts, &quoteScan{}) {
		out = append(out, s[last:e.from]...)
		switch {
		case e.literal:
			out = append(out, e.with...)
		case r.rewrite != nil:
			out = append(out, r.rewrite(s[e.m[0]:e.m[1]])...)
		default:
			out = r.Pattern.ExpandString(out, r.Replacement, s, e.m)
		}
		last = e.to
	}
	if out == nil {
		return s
	}
	return string(append(out, s[last:]...))
}

// edit is a verified match of a rule in a text: its submatch indexes m;
// it replaces the text's bytes from:to (the match's, m[0]:m[1]) with the
// rule's replacement of the match or, when literal, with with (a change
// found in a percent-decoded query value, made in the raw text).
type edit struct {
	m        []int
	from, to int
	with     string
	literal  bool
}

// verified returns the edits of the matches of ms (submatch indexes in s)
// that r takes: Verify's and verifyIn's. In a match they reject, the part
// from the offset within gives is searched again, as a text of its own: a
// URL query parameter kept for its name (?q=…) may hold an assignment in
// its value (?q=password=hunter2), which the parameter's match had taken;
// with rawNamed, also percent-decoded (decodedEdits). A match cut shorter
// (Rule.cut) has the rest of it searched again too, and at most cuts
// matches in a row are cut (maxCuts).
func (r *Rule) verified(s string, ms [][]int, cuts int, qs *quoteScan) []edit {
	var out []edit
	for _, m := range ms {
		quote, end := m[1], m[1]
		if r.cut != nil && cuts > 0 {
			quote, end = r.cut(s, m, qs)
		}
		rest := m[1]
		if end >= 0 {
			m[1] = end
			out = append(out, r.verifiedOne(s, m, cuts, qs)...)
		}
		// quote > m[0]: each search is of a shorter text, so this ends.
		if quote > m[0] && quote < rest {
			out = append(out, r.verified(s, r.searchedIn(s, quote, rest), cuts-1, qs)...)
		}
	}
	return out
}

// maxCuts is the most matches in a row verified cuts (Rule.cut): the
// search again after a cut runs to the old end, the end of the line, and
// with no bound a line of quoted strings ("password: abcd" "password: …)
// was searched once a string, 0.8 s for a line of 17 kB. The match after
// the last cut is taken whole, as before cuts.
const maxCuts = 8

// verifiedOne returns the edits of the match m (submatch indexes in s) that
// r takes: m's own, or those found again in the part of it within gives.
func (r *Rule) verifiedOne(s string, m []int, cuts int, qs *quoteScan) []edit {
	if (r.Verify == nil || r.Verify(s[m[0]:m[1]])) && (r.verifyIn == nil || r.verifyIn(s, m)) {
		return []edit{{m: m, from: m[0], to: m[1]}}
	}
	if r.within == nil {
		return nil
	}
	// at > m[0]: each search is of a shorter text, so this ends.
	if at := r.within(s, m); at > m[0] && at < m[1] {
		raw := r.verified(s, r.searchedIn(s, at, m[1]), cuts, qs)
		return r.decodedEdits(s[at:m[1]], at, raw)
	}
	return nil
}

// searchedIn returns the submatch indexes, in s, of r's matches in
// s[from:to] searched as a text of its own.
func (r *Rule) searchedIn(s string, from, to int) [][]int {
	ms := r.Pattern.FindAllStringSubmatchIndex(s[from:to], -1)
	for _, m := range ms {
		shiftIndexes(m, from)
	}
	return ms
}

// shiftIndexes adds at to the set indexes of m.
func shiftIndexes(m []int, at int) {
	for k := range m {
		if m[k] >= 0 {
			m[k] += at
		}
	}
}

// matches returns the submatch indexes of r's matches in s, searching only
// the spans of s that spans gives when it is not nil.
func (r *Rule) matches(s string, spans func(string) [][2]int) [][]int {
	if spans == nil {
		return r.Pattern.FindAllStringSubmatchIndex(s, -1)
	}
	var all [][]int
	for _, sp := range spans(s) {
		for _, m := range r.Pattern.FindAllStringSubmatchIndex(s[sp[0]:sp[1]], -1) {
			shiftIndexes(m, sp[0])
			all = append(all, m)
		}
	}
	return all
}

// PatternRedactor applies its rules in order. It is safe for concurrent use.
// Rules must not change after the first Redact: the prefilter is built from
// them once.
type PatternRedactor struct {
	// Rules are applied in order (DefaultRules for DefaultRedactor).
	Rules []Rule

	once sync.Once
	pf   *prefilter
}

// Redact applies every rule to s; a rule with Triggers runs only when one
// of them occurs in s. A JSON document (a tool result, tool-call
// arguments) is redacted value by value and stays JSON (redactDocument),
// and so is each JSON value found in other text (redactEmbedded: JSON
// Lines, a log line's payload). Text without '{' or '[' costs two byte
// searches more than the rules; text holding one, when no rule changed it,
// a search for '\', a digit run and a secret's key before a list or an
// object (keyedContainer).
func (r *PatternRedactor) Redact(s string) string {
	r.once.Do(func() { r.pf = newPrefilter(r.Rules) })
	red := r.redactText(s)
	if strings.IndexByte(s, '{') < 0 && strings.IndexByte(s, '[') < 0 {
		return red
	}
	if red == s && strings.IndexByte(s, '\\') < 0 && !digitRun(s) && !r.keyedContainer(s) {
		return s // no rule matched, and decoding or a key's list would show none
	}
	if jsonDocument(s) && json.Valid([]byte(s)) {
		return r.redactDocument(s)
	}
	return r.redactEmbedded(s, red)
}

// redactText applies the rules to s as it is.
func (r *PatternRedactor) redactText(s string) string {
	// ſ (U+017F) and K (U+212A) are the only non-ASCII runes that (?i)
	// folds to ASCII letters (s and k): with them, no rule is skipped.
	// (Two substring searches: ContainsAny with non-ASCII runes decodes
	// every rune of s: 1.3 % of an ingest's CPU.)
	if strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a") {
		for i := range r.Rules {
			s = r.Rules[i].apply(s, nil)
		}
		return s
	}
	hit := r.pf.scan(s)
	for i := range r.Rules {
		if !hit.has(i) {
			continue
		}
		if out := r.Rules[i].apply(s, r.pf.spans(i)); out != s {
			// A replacement may create or remove triggers: look again
			// for the rules still to run.
			s = out
			hit = r.pf.scan(s)
		}
	}
	return s
}

// With returns a redactor with r's rules followed by extra.
func (r *PatternRedactor) With(extra ...Rule) *PatternRedactor {
	return &PatternRedactor{Rules: append(append([]Rule(nil), r.Rules...), extra...)}
}

// DefaultRedactor returns a redactor with DefaultRules. Extend it with
// DefaultRedactor().With(rule…) or replace it through Config.Redactor.
func DefaultRedactor() *PatternRedactor {
	return &PatternRedactor{Rules: DefaultRules()}
}

// prefilter finds, in one pass over a text, which rules have a trigger in
// it. Triggers are indexed by their first two bytes (ASCII-lowercased): at
// each position of the text one table lookup rejects almost every position,
// so the cost grows with the text, not with the number of triggers.
type prefilter struct {
	always bitset // rules that run on every text
	// patterns[i] is rules[i].Pattern, for a rule with triggers; local[i]
	// whether it is lineLocal (byLine), found on the rule's first search.
	patterns []*regexp.Regexp
	local    []atomic.Uint32
	// lineMay[i] is rules[i].lineMay, for a rule with triggers.
	lineMay []func(line string, at int) bool
	pair    [1 << 16]uint16
	groups  [][]trigger // groups[pair[k]-1]: the triggers starting with k
	n       int
}

type trigger struct {
	rest string // the trigger after its first two bytes
	rule int
}

type bitset []uint64

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }

func newPrefilter(rules []Rule) *prefilter {
	p := &prefilter{n: len(rules), always: make(bitset, (len(rules)+63)/64), patterns: make([]*regexp.Regexp, len(rules)),
		local: make([]atomic.Uint32, len(rules)), lineMay: make([]func(string, int) bool, len(rules))}
	for i, r := range rules {
		short := len(r.Triggers) == 0
		for _, t := range r.Triggers {
			short = short || len(t) < 2
		}
		if short {
			p.always.set(i)
			continue
		}
		p.patterns[i], p.lineMay[i] = r.Pattern, r.lineMay
		for _, t := range r.Triggers {
			t = asciiLower(t)
			k := uint16(t[0])<<8 | uint16(t[1])
			if p.pair[k] == 0 {
				p.groups = append(p.groups, nil)
				p.pair[k] = uint16(len(p.groups))
			}
			g := p.pair[k] - 1
			p.groups[g] = append(p.groups[g], trigger{rest: t[2:], rule: i})
		}
	}
	return p
}

// scan returns the rules to run on s.
func (p *prefilter) scan(s string) bitset {
	hit := append(bitset(nil), p.always...)
	if len(s) < 2 {
		return hit
	}
	prev := lowerByte[s[0]]
	for i := 1; i < len(s); i++ {
		c := lowerByte[s[i]]
		if g := p.pair[uint16(prev)<<8|uint16(c)]; g != 0 {
			for _, t := range p.groups[g-1] {
				if !hit.has(t.rule) && hasLowerPrefix(s[i+1:], t.rest) {
					hit.set(t.rule)
				}
			}
		}
		prev = c
	}
	return hit
}

// named reports whether s may name a secret for the rules: it holds a
// trigger of a rule, or a rule always runs (a rule without triggers may
// match anything), or s holds a rune (?i) folds to ASCII.
func (p *prefilter) named(s string) bool {
	for _, w := range p.always {
		if w != 0 {
			return true
		}
	}
	if strings.Contains(s, "\u017f") || strings.Contains(s, "\u212a") {
		return true
	}
	for _, w := range p.scan(s) {
		if w != 0 {
			return true
		}
	}
	return false
}

// hasLowerPrefix reports whether s, ASCII-lowercased, starts with the
// lowercase prefix.
func hasLowerPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lowerByte[s[i]] != prefix[i] {
			return false
		}
	}
	return true
}

// lowerByte maps ASCII capitals to lowercase and every other byte to itself.
var lowerByte = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// asciiLower lowercases ASCII letters only.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte[c]
	}
	return string(b)
}
