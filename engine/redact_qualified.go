package engine

import (
	"regexp"
	"strings"
)

// A credential word is not always right before its colon: a label names
// which password it is ("Password (home wifi): …", "- Password - Wifi:
// …"), a possessive or a plural stands there ("- **password's**: …",
// "- WiFi passwords: …"). The assignment rule reads a name then its
// operator, and its program has no room for more forms (assignNames'
// comment): rev70 found all of these stored in clear. The
// assignment-qualified rule reads them, with the assignment rule's
// values after a colon.

// qualifier is what may stand between a credential word and its colon: a
// bracketed note of up to 40 characters, no colon, '=' or bracket in it
// ("(home wifi)"), or a dash between blanks and one to three words
// ("- Wifi", "– work laptop"), after an emphasis closer or none
// ("**Password** (wifi): …").
const qualifier = `(?:\*\*|__)?(?:[ \t]*\([^()\r\n:=]{1,40}\)|[ \t]+[-–—][ \t]+\pL[\pL\pN'’.]*(?:[ \t]+\pL[\pL\pN'’.]*){0,2})`

// qualifiedPattern is the assignment-qualified rule's pattern: a
// credential name with a qualifier, a possessive 's, or a password word
// in the plural (group plural: passwords, passphrases, passcodes), then
// a colon (in emphasis or not) and a value as the assignment rule's
// form 2 takes it (quoted, or to the end of the line). Only these three
// plurals: tokens and keys are counted in every model's usage log
// (total_tokens: 1500), and secrets, creds and credentials are
// assignNames already.
var qualifiedPattern = `(?i)(?P<name>(?:` + credentialNames + `)(?:(?:['’]s)?` + qualifier + `|['’]s)` +
	`|(?P<plural>pass(?:code|phrase|word)s)(?:` + qualifier + `)?)` +
	`(?P<op>` + mdBold + `[ \t]*:` + mdBold + `[ \t]*)(?:` + quoted + `|` + lineValue + `|` + lineAfterBreak + `)`

// qualifiedRule is the assignment-qualified rule: qualifiedPattern,
// verified and cut as the assignment rule is. A plural names a topic
// (topicLabel): a sentence after it is kept (proseSentence: "Passwords:
// use a phrase that is easy for you to remember"), a value of a
// secret's shape (a digit, a symbol, no stop words) replaced, on a
// list's label or anywhere else ("- WiFi passwords: Tr0ub4dor&3"). A
// singular word, qualified or possessive, is a field: its value is
// replaced whatever its shape.
func qualifiedRule() Rule {
	re := mustRe(qualifiedPattern)
	return Rule{Name: "assignment-qualified", Pattern: re,
		Replacement: "${name}${op}${q}" + RedactionMark + "${q}",
		Triggers:    credentialTriggers,
		Verify:      notPlaceholder, verifyIn: notPluralProse(re), lineMay: opAfter,
		cut: stringEnd(re)}
}

// notPluralProse returns assignment-qualified's verifyIn for its pattern
// re: it rejects a label followed by a sentence (notLabelProse), and a
// plural password word followed by one (proseSentence).
func notPluralProse(re *regexp.Regexp) func(s string, m []int) bool {
	plural, op := re.SubexpIndex("plural"), re.SubexpIndex("op")
	return func(s string, m []int) bool {
		if m[2*plural] >= 0 && proseSentence(strings.TrimLeft(s[m[2*op+1]:m[1]], "*_ \t")) {
			return false
		}
		return notLabelProse(s, m)
	}
}
