package engine

import "strings"

// A label wrapped over two lines keeps its value from the rules that read
// a line ("Password\n(home wifi): …", "Password (home wifi)\n: …",
// "Password\n: …": a chat's or a terminal's wrapping, a careless copy):
// red73 found them stored in clear. The assignment-wrapped rule reads
// them; its pattern holds a line break, so it runs on a whole text, and
// only on one where a line starts with a note or a colon after a line
// ending in a letter or a bracket (mayWrapped).

// wrapBreak is a line break with the blanks around it.
const wrapBreak = `[ \t]*\r?\n[ \t]*`

// wrappedPattern is the assignment-wrapped rule's pattern: a credential
// name, then a line break and a bracketed note (a line break after it
// or not), or a qualifier or none and a line break, then a colon (ASCII
// or full-width, in emphasis or not) and a value on the colon's line,
// as the assignment rule's form 2 takes it.
var wrappedPattern = `(?i)(?P<name>(?:` + credentialNames + `)(?:` +
	wrapBreak + `[(\[{][^()\r\n:=]{1,40}[)\]}](?:` + wrapBreak + `)?|(?:` + qualifier + `)?` + wrapBreak + `))` +
	`(?P<op>` + mdBold + `[ \t]*(?::|` + fullColon + `)` + mdBold + `[ \t]*)(?:` + quoted + `|` + lineValue + `)`

// wrappedRule is the assignment-wrapped rule: wrappedPattern, verified
// as the assignment rule's value after a colon (wrappedValue).
func wrappedRule() Rule {
	return Rule{Name: "assignment-wrapped", Pattern: mustRe(wrappedPattern),
		Replacement: "${name}${op}${q}" + RedactionMark + "${q}",
		Triggers:    credentialTriggers, may: mayWrapped, Verify: wrappedValue}
}

// wrappedValue reports whether the value of match, after its last line
// break and the colon after it, is no placeholder, reference or code.
func wrappedValue(match string) bool {
	v := match[strings.LastIndexByte(match, '\n')+1:]
	if _, after, ok := strings.Cut(v, fullColon); ok {
		v = after
	} else {
		_, v, _ = strings.Cut(v, ":")
	}
	return !placeholderValue(strings.TrimLeft(v, "*_ \t"))
}

// mayWrapped reports whether s may hold a match of assignment-wrapped: a
// line that starts, after blanks, with a bracket or a colon, after a line
// ending in a letter or a closing bracket (blanks and a CR aside).
func mayWrapped(s string) bool {
	for i := strings.IndexByte(s, '\n'); i >= 0; i = nextByte(s, i, '\n') {
		next := strings.TrimLeft(s[i+1:], " \t")
		if next == "" || !strings.HasPrefix(next, fullColon) && strings.IndexByte("([{:", next[0]) < 0 {
			continue
		}
		prev := strings.TrimRight(s[:i], " \t\r")
		if prev != "" && (isAlnum(prev[len(prev)-1]) || strings.IndexByte(")]}*_", prev[len(prev)-1]) >= 0) {
			return true
		}
	}
	return false
}
