package engine

import (
	"regexp"
	"strings"
	"sync"
)

// yamlEscapedRule finds YAML written with its line breaks escaped (\n, \r
// as two characters) inside text that is no JSON document: a log line
// quoting a config (log: "password: |\n  hunter2\n"), a key=value field
// (config=client_secret: >-\n    abc\nuser: bob). The YAML rules want
// real line breaks; before (yaml53), such a block scalar, list or plain
// scalar under a credential key was stored in clear (a JSON document's
// strings are decoded, so only text that is no JSON missed them). Each
// line holding an escaped break is read as YAML (yamlEscaped). Its
// triggers are the escapes (every match holds one; the YAML rules then
// want a credential name): credentialTriggers, frequent words, cost
// ordinary text a scan of their groups per rule.
func yamlEscapedRule() Rule {
	return Rule{Name: "yaml-escaped", Pattern: mustRe(`(?m)^[^\r\n]*\\[nr][^\r\n]*`),
		Triggers: []string{`\n`, `\r`}, rewrite: yamlEscaped, may: mayEscapedYAML}
}

// yamlViewRules are the YAML rules yamlEscaped applies to a line's
// escaped YAML, compiled once.
var yamlViewRules = sync.OnceValue(yamlRules)

// yamlEscaped redacts line, a line holding escaped line breaks, as YAML:
// from the key that ends the text before its first escaped \n or \r\n (after
// an opening quote, '=' or a blank: log: "password: |\n…) or from that
// break, to the quote that closes the string (or the line's end), the
// escaped breaks become real ones, the YAML rules run, and the breaks are
// escaped again; every other byte stays.
func yamlEscaped(line string) string {
	b := firstEscapedBreak(line)
	for b >= 0 && line[b+1] == 'r' && !strings.HasPrefix(line[b+2:], `\n`) {
		// A lone \r, a terminal's carriage return (progress 50%\r log:
		// "password: |\n…"), breaks no YAML line: the key is the one
		// before the next \n or \r\n.
		next := firstEscapedBreak(line[b+2:])
		if next < 0 {
			return line
		}
		b += 2 + next
	}
	if b < 0 {
		return line
	}
	start := b
	if m := escapedKey.FindStringSubmatchIndex(line[:b]); m != nil {
		start = m[2]
		if start < 0 {
			start = m[4]
		}
	}
	end := len(line)
	q := quoteBefore(line, start)
	if q == 0 && opensString(line[start:b]) {
		// log: "password: |\n…" read from the blank: the quote is the
		// string's, not the key's. Read with it, the value ran on to the
		// line's end, past the closing quote (rev53).
		q = line[start]
		start++
	}
	if q != 0 {
		end = closingQuote(line, b, q)
	}
	head := line[:start] + escapedYAMLLines(line[start:end])
	if end < len(line) {
		// After the string's closing quote: another string of the line
		// may hold escaped YAML (a="…" b="token: |\n…").
		return head + yamlEscaped(line[end:])
	}
	return head
}

// escapedYAMLLines redacts text, YAML whose line breaks are escaped (\n,
// \r\n), as the YAML rules read it: a lone \r (no \n after it, as a
// terminal's carriage return is written) ends the YAML before it, and the
// text after it is read apart. The YAML rules take \n and \r\n for line
// breaks only: before, password: |\n  hunter2secret\r\on: bob kept its
// value, the value's line not ending at \r (red56). (YAML whose every
// break is a lone \r, an old Mac file's, is not read.)
func escapedYAMLLines(text string) string {
	var b strings.Builder
	for {
		cr := loneEscapedCR(text)
		if cr < 0 {
			b.WriteString(escapedYAMLView(text))
			return b.String()
		}
		b.WriteString(escapedYAMLView(text[:cr]))
		b.WriteString(`\r`)
		text = text[cr+2:]
	}
}

// escapedYAMLView redacts text, YAML whose line breaks are escaped and
// holds no lone \r: the escaped breaks become real ones, the YAML rules
// run, and the breaks are escaped again; every other byte stays.
func escapedYAMLView(text string) string {
	view := unescapeBreaks(text)
	out := view
	for _, r := range yamlViewRules() {
		out = r.apply(out, nil)
	}
	if out == view {
		return text
	}
	return escapeBreaks(out)
}

// loneEscapedCR is the index of the first \r in s (the backslash not
// itself escaped) that no \n follows, or -1.
func loneEscapedCR(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' {
			if s[i+1] == 'r' && !strings.HasPrefix(s[i+2:], `\n`) {
				return i
			}
			i++
		}
	}
	return -1
}

// escapedKey is a YAML key left empty on its line, or with a block
// scalar's header, at the end of the text before an escaped break: after
// the text's start, a quote, '=', '`', '(', ',', ';' or '[' (group 1, its
// indentation with it), or after a blank (group 2).
var escapedKey = regexp.MustCompile(`(?:(?:^|["'=` + "`" + `(,;\[])(` + `[ \t]*` + escapedKeyBody + `)|[ \t](` + escapedKeyBody + `))$`)

// escapedKeyBody is a key as yamlKeyStart and yamlKeyEnd frame it, then a
// tag, a block header and a comment, each optional.
const escapedKeyBody = `(?:(?:-[ \t]|\{)[ \t]*)*(?:\*\*)?["']?[\w.-]+["']?(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*(?:![^\s]*[ \t]+)?(?:[|>][1-9+-]{0,2})?[ \t]*(?:#.*)?`

// quoteBefore is the quote that opens the string the key at start is in
// (a '"' or '\” before it, blanks aside), or 0.
func quoteBefore(line string, start int) byte {
	i := start - 1
	for i >= 0 && (line[i] == ' ' || line[i] == '\t') {
		i--
	}
	if i >= 0 && (line[i] == '"' || line[i] == '\'') {
		return line[i]
	}
	return 0
}

// opensString reports whether key, the text from a key's start to the
// first escaped break, starts with a quote that does not close before the
// key's colon: the quote opens the string the key is in ("password: |),
// and is no quoted key's ("password": |).
func opensString(key string) bool {
	if key == "" || key[0] != '"' && key[0] != '\'' {
		return false
	}
	colon := strings.IndexByte(key, ':')
	return colon < 0 || strings.IndexByte(key[1:colon], key[0]) < 0
}

// closingQuote is the index of the first q in line after from that no
// backslash escapes and that ends a string: the line's end, a blank or
// one of ,;)]}& follows it (a quote in a value, log: "password:\n
// hu"nter2", is no end: the value is taken whole), and the escaped YAML
// line does not go on after it (yamlGoesOn); or len(line).
func closingQuote(line string, from int, q byte) int {
	for i := from; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case q:
			if i+1 == len(line) || strings.IndexByte(" \t,;)]}&", line[i+1]) >= 0 && !yamlGoesOn(line[i+1:], q) {
				return i
			}
		}
	}
	return len(line)
}

// yamlGoesOn reports whether rest, the text after a quote, is blanks, and
// a comment ('#' on) with no quote q in it, before an escaped line break:
// the quote closed a quoted scalar of the escaped YAML (- value:
// "abc123def" # x\n), not the string it is in. Before, such a quote ended
// the string, and the YAML after it (the entry's name: API_TOKEN) was
// read apart, its value kept (red56).
func yamlGoesOn(rest string, q byte) bool {
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "#") {
		return strings.HasPrefix(rest, `\n`) || strings.HasPrefix(rest, `\r`)
	}
	b := firstEscapedBreak(rest)
	return b > 0 && strings.IndexByte(rest[:b], q) < 0
}

// firstEscapedBreak is the index of the first line break in s written as two
// characters (\n or \r, the backslash not itself escaped), or -1.
func firstEscapedBreak(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' {
			if s[i+1] == 'n' || s[i+1] == 'r' {
				return i
			}
			i++
		}
	}
	return -1
}

// unescapeBreaks turns the escaped line breaks of s (\n, \r; an escaped
// backslash, \\, stays as it is) into real ones. s holds no real line
// break, so escapeBreaks undoes it exactly.
func unescapeBreaks(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteString(s[i : i+2])
			}
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escapeBreaks writes the line breaks of s as two characters (\n, \r).
var escapeBreaks = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace

// mayEscapedYAML reports whether s may hold a match of yaml-escaped that
// the YAML rules change: a colon followed by blanks, then an escaped line
// break, a comment, or a tag or block header before an escaped break
// (password:\n, password: |\n, **Password:** >-\n).
func mayEscapedYAML(s string) bool {
	if !strings.Contains(s, `\n`) && !strings.Contains(s, `\r`) {
		return false
	}
	return anyAfterColon(s, func(_ int, rest string) bool {
		rest = strings.TrimLeft(strings.TrimPrefix(rest, "**"), " \t")
		if strings.HasPrefix(rest, `\n`) || strings.HasPrefix(rest, `\r`) || strings.HasPrefix(rest, "#") {
			return true
		}
		if rest == "" || strings.IndexByte("|>!", rest[0]) < 0 {
			return false
		}
		head := rest[:min(len(rest), 40)]
		return strings.Contains(head, `\n`) || strings.Contains(head, `\r`)
	})
}
