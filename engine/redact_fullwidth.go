package engine

import "strings"

// fullColon is the full-width colon (U+FF1A), as a Chinese or Japanese
// input method writes one after a label in text that is otherwise
// English ("Password：hunter2"). No other rule reads it: red73 found
// password：x stored in clear, with a note before it or not.
const fullColon = "："

// fullwidthPattern is the assignment-fullwidth rule's pattern: a
// credential name, with a qualifier, a possessive or none, a password
// word in the plural, or a note holding a credential word (innerNote),
// as assignment-qualified reads them, then a full-width colon (group op,
// in emphasis or not) and a value as the assignment rule's form 2 takes
// it: quoted, or to the end of the line.
var fullwidthPattern = `(?i)(?P<name>(?:` + credentialNames + `)(?:(?:['’]s)?` + qualifier + `|['’]s)?` +
	`|(?P<plural>pass(?:code|phrase|word)s)(?:` + qualifier + `)?|` + innerNote + `)` +
	`(?P<op>` + mdBold + `[ \t]*` + fullColon + mdBold + `[ \t]*)(?:` + quoted + `|` + lineValue + `)`

// fullwidthRule is the assignment-fullwidth rule: fullwidthPattern,
// on a text holding a full-width colon, its value verified as the
// assignment rule's (fullwidthValue) and kept after a plural password
// word when it is a sentence, as assignment-qualified keeps one.
func fullwidthRule() Rule {
	re := mustRe(fullwidthPattern)
	return Rule{Name: "assignment-fullwidth", Pattern: re,
		Replacement: "${name}${op}${q}" + RedactionMark + "${q}",
		Triggers:    credentialTriggers, may: func(s string) bool { return strings.Contains(s, fullColon) },
		Verify: fullwidthValue, verifyIn: notPluralProse(re), cut: stringEnd(re)}
}

// fullwidthValue reports whether the value of match, after its first
// full-width colon, an emphasis closer and blanks, is no placeholder,
// reference or code (placeholderValue: password：<your password>).
func fullwidthValue(match string) bool {
	_, v, _ := strings.Cut(match, fullColon)
	return !placeholderValue(strings.TrimLeft(v, "*_ \t"))
}
