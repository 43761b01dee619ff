package engine

import (
	"regexp"
	"strings"
	"unicode"
)

// A credential word is not always right before its colon: a label names
// which password it is ("Password (home wifi): …", "- Password - Wifi:
// …"), a possessive or a plural stands there ("- **password's**: …",
// "- WiFi passwords: …"). The assignment rule reads a name then its
// operator, and its program has no room for more forms (assignNames'
// comment): rev70 found all of these stored in clear. The
// assignment-qualified rule reads them, with the assignment rule's
// values after a colon.

// qualifier is what may stand between a credential word and its colon:
// one or two notes (qualifierNote), after an emphasis closer or none
// ("**Password** (wifi): …", "Password (wifi) (guest): …", "- Password -
// Wifi - Guest: …").
const qualifier = `(?:\*\*|__)?(?:` + qualifierNote + `){1,2}`

// qualifierNote is one note: bracketed in (), [] or {} (the brackets
// need not pair; a blank before [ or {, as code indexes a name
// glued to them: secrets[name] = value), up to 40 characters, no colon,
// '=', line break or parenthesis in it, or in doubled parentheses
// ("((home))"); or a dash
// between blanks and one to three words, a word holding hyphens
// ("- Wi-Fi", "– work laptop"). Before (red73), only () counted, and a
// hyphen ended a dash's word: "- Password - Wi-Fi: …", "Password [home
// wifi]: …" and two notes were stored in clear.
const qualifierNote = `(?:[ \t]*\(\(?|[ \t]+[\[{])[^()\r\n:=]{1,40}\)?[)\]}]` +
	`|[ \t]+[-–—][ \t]+\pL[\pL\pN'’.-]*(?:[ \t]+\pL[\pL\pN'’.-]*){0,2}`

// innerNote is a bracketed note that ends in a credential word, after
// the words it qualifies ("Wi-Fi (password): …", "Router [admin
// password]: …"): the assignment-qualified rule reads it as a name.
// The word ends the note, so that "Usage (tokens used): 1500" stays.
const innerNote = `[(\[{][^()\r\n:=]{0,30}(?:` + credentialNames + `)[)\]}]`

// qualifiedPattern is the assignment-qualified rule's pattern: a
// credential name with a qualifier, a possessive 's, or a password word
// in the plural (group plural: passwords, passphrases, passcodes), or
// a note holding a credential word (innerNote), then a colon (in
// emphasis or not) and a value as the assignment rule's form 2 takes it
// (quoted, or to the end of the line), or '=' and a value as its form 4
// takes it (quoted, or to the next blank: "Password (wifi) = x"). Only these three plurals: tokens and keys are counted in
// every model's usage log (total_tokens: 1500), and secrets, creds and
// credentials are assignNames already.
var qualifiedPattern = `(?i)(?P<name>(?:` + credentialNames + `)(?:(?:['’]s)?` + qualifier + `|['’]s)` +
	`|(?P<plural>pass(?:code|phrase|word)s)(?:` + qualifier + `)?|` + innerNote + `)` +
	`(?:(?P<op>` + mdBold + `[ \t]*:` + mdBold + `[ \t]*)(?:` + quoted + `|` + lineValue + `|` + lineAfterBreak + `)` +
	`|(?P<op>[ \t]*=[ \t]*)(?:` + quoted + `|(?:[^\s=<>\\]|\\[^nr\s])` + bareByte + `{2,}` + bareEnd + `))`

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
// re: it rejects a label followed by a sentence (notLabelProse), a
// plural password word followed by one (proseSentence), and '=' after a
// name with no note (noted: passwords = ["a", "b"] is code), and a
// note of prose holding the credential word (proseNote).
func notPluralProse(re *regexp.Regexp) func(s string, m []int) bool {
	plural, op := re.SubexpIndex("plural"), re.SubexpIndex("op")
	name, equals := re.SubexpIndex("name"), lastGroup(re, "op")
	return func(s string, m []int) bool {
		if equals != op && m[2*equals] >= 0 && !noted(s[m[2*name]:m[2*name+1]]) {
			return false
		}
		if proseNote(s[m[2*name]:m[2*name+1]]) {
			return false
		}
		if m[2*plural] >= 0 && m[2*op+1] >= 0 && proseSentence(strings.TrimLeft(s[m[2*op+1]:m[1]], "*_ \t")) {
			return false
		}
		return notLabelProse(s, m)
	}
}

// lastGroup returns the index of re's last group named name.
func lastGroup(re *regexp.Regexp, name string) int {
	last := -1
	for i, n := range re.SubexpNames() {
		if n == name {
			last = i
		}
	}
	return last
}

// noted reports whether name, assignment-qualified's group name, holds a
// note: a bracket, or a dash between blanks.
func noted(name string) bool {
	return strings.ContainsAny(name, "([{") || strings.Contains(name, " - ") ||
		strings.Contains(name, " – ") || strings.Contains(name, " — ")
}

// proseNote reports whether name, assignment-qualified's group name, is
// a note holding a credential word (innerNote) with a stop word in it:
// prose ("Forgot (your password): click the link", "GET %s (text/html,
// no token): %d"), not a field's name ("Wi-Fi (password)", "Router
// (admin password)").
func proseNote(name string) bool {
	if name == "" || strings.IndexByte("([{", name[0]) < 0 {
		return false
	}
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		if stopWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}
