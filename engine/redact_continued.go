package engine

import (
	"regexp"
	"strings"
)

// continuedValueRule recognises a value after a credential name and a
// colon that goes on on the next lines, indented more than the name's
// line (password: ab\n  hunter2secret; also with the line breaks escaped,
// \n, \r\n, as a log line writes them): YAML 1.2.2 §7.3.3 reads such a
// plain scalar's lines as one value, folded ("ab hunter2secret"). The
// value on the name's line (one word) and the lines that continue it
// become one RedactionMark. Before (red56), note: password: ab\r\n
// hunter2secret was stored as written: the assignment rule takes a value
// to its line's end and keeps one of 3 bytes or less (too short to be
// told from a word), and the YAML rules want the key alone on its line.
// A continuation that is a key (user: bob), a list entry, a comment or
// words, or that is indented no more than the name's line, is none: the
// value is left to the other rules.
func continuedValueRule() Rule {
	return Rule{Name: "continued-value", Pattern: continuedValue,
		Replacement: "${name}${op}" + RedactionMark + "${end}", Triggers: credentialTriggers,
		may: mayContinued, verifyIn: continuesValue}
}

// continuedValue is continued-value's pattern: a credential name, a colon,
// a one-word value (not a block header, a comment, an anchor, a tag, an
// alias, a quoted or a flow value), then lines of one word after a real or
// an escaped break and blanks (group more; a word starts with no '#' or
// '-', and holds no quote), then the end of the last one (group end, kept):
// a break, a quote (the string's, in a log line) or the text's end.
var continuedValue = mustRe(`(?i)(?P<name>` + credentialNames + `)(?P<op>[ \t]*:[ \t]*)` +
	`(?P<value>[^\s=<>\\|#"'&!*\[{](?:[^\s\\]|\\[^nr\s])*)[ \t]*` +
	`(?P<more>(?:(?:\r?\n|\\r\\n|\\[nr])[ \t]+(?:[^\s\\"#-]|\\[^nr\s"])(?:[^\s\\"]|\\[^nr\s"])*[ \t]*)+)` +
	`(?P<end>\r?\n|\\[nr]|"|\z)`)

// continuedGroups are the indexes of continuedValue's groups value and more.
var continuedGroups = [2]int{continuedValue.SubexpIndex("value"), continuedValue.SubexpIndex("more")}

// breaksToLF writes every line break of s (CRLF, CR, LF) as LF.
var breaksToLF = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace

// codeCall is a line of code that calls a function (foo(), self.x(a);):
// a name, its arguments in parentheses, a ';', ':' or ',' after them,
// and no digit in any of them. A generated secret holds digits (a run of
// 16 random letters and digits holds none one time in 17), and one that
// looks like a call (hunter2(x), P4ss(w0rd);) is a secret's shape: red60's
// codeCall took any name and arguments, and password: ab\n  Xy7(q) was
// stored in clear (red62). A call with a digit (sleep(5)) goes with the
// value, as before red60.
var codeCall = regexp.MustCompile(`^[A-Za-z_$][A-Za-z_.$]*\([^0-9]*\)[;:,]?$`)

// continuesValue reports whether the lines of match m of s (group more of
// continued-value's) continue its value: each is one word (words are
// prose, as yaml-credential-plain keeps them: note: password: ab\r\n
// next line stays), indented more than the name's line (its column:
// yamlKeyColumn, the line starting after the last real or escaped break
// before the name), no key and no call (codeCall: if token: pass\n
// foo() keeps foo()); the value is no placeholder, and no query's
// parameters (right after the colon, holding '&':
// ?filter=api_key:sk…&from=1\n  x keeps &from=1, which went with it).
func continuesValue(s string, m []int) bool {
	value, more := continuedGroups[0], continuedGroups[1]
	if placeholderValue(s[m[2*value]:m[2*value+1]]) {
		return false
	}
	if m[2*value] > 0 && s[m[2*value]-1] == ':' && strings.ContainsRune(s[m[2*value]:m[2*value+1]], '&') {
		return false // ?filter=api_key:sk…&from=1: a query's parameters, no YAML key (no blank after the colon)
	}
	start := strings.LastIndexByte(s[:m[0]], '\n') + 1
	if i := max(strings.LastIndex(s[start:m[0]], `\n`), strings.LastIndex(s[start:m[0]], `\r`)); i >= 0 {
		start += i + 2
	}
	col := yamlKeyColumn(s[start:m[0]])
	for _, l := range strings.Split(breaksToLF(unescapeBreaks(s[m[2*more]:m[2*more+1]])), "\n")[1:] {
		w := strings.TrimSpace(l)
		if indentOf(l) <= col || strings.ContainsAny(w, " \t") || yamlMapping.MatchString(w) || codeCall.MatchString(w) {
			return false
		}
	}
	return true
}

// mayContinued reports whether s may hold a match of continued-value: a
// colon, blanks, a word of no backslash, blanks, a line break (real or
// escaped) and a blank. It shares the assignment rule's triggers,
// frequent words, and its pattern is searched on the whole text. The word
// ends at a colon, where anyAfterColon looks next (password: a:b\n  c),
// so no byte is read twice (a:a:a:… would be read once a colon).
func mayContinued(s string) bool {
	if !breakThenBlank(s) {
		return false // a log of unindented lines: one pass, not one a colon
	}
	return anyAfterColon(s, func(_ int, rest string) bool {
		n := 0
		for n < len(rest) && rest[n] > ' ' && rest[n] != '\\' && rest[n] != ':' {
			n++
		}
		if n == 0 {
			return false
		}
		rest = strings.TrimLeft(rest[n:], " \t")
		for _, b := range []string{"\r\n", "\n", `\r\n`, `\n`, `\r`} {
			if strings.HasPrefix(rest, b) {
				rest = rest[len(b):]
				return rest != "" && (rest[0] == ' ' || rest[0] == '\t')
			}
		}
		return false
	})
}

// breakThenBlank reports whether s holds a line break, real or escaped
// (\n, \r as two characters), followed by a blank: an indented line.
func breakThenBlank(s string) bool {
	blankAt := func(j int) bool { return j < len(s) && (s[j] == ' ' || s[j] == '\t') }
	for i := strings.IndexByte(s, '\n'); i >= 0; i = nextByte(s, i, '\n') {
		if blankAt(i + 1) {
			return true
		}
	}
	for i := strings.IndexByte(s, '\\'); i >= 0; i = nextByte(s, i, '\\') {
		if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r') && blankAt(i+2) {
			return true
		}
	}
	return false
}

// nextByte is the index of the next c in s after index i, or -1.
func nextByte(s string, i int, c byte) int {
	if k := strings.IndexByte(s[i+1:], c); k >= 0 {
		return i + 1 + k
	}
	return -1
}
