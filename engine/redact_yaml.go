package engine

import (
	"regexp"
	"strings"
	"unicode"
)

// yamlGap is any number of blank or comment lines (YAML 1.2.2 §6.7
// "Separation Lines", §6.6 "Comments"), as a block sequence may hold
// after its key and between its entries: tokens:\n  # old\n  - x.
const yamlGap = `(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*`

// yamlKeyStart is what may come before a key at the start of its line:
// indentation, the dashes of block sequence entries (- password: |, the
// key of a mapping that is a list's item, as Kubernetes writes them), a
// flow mapping's brace ({password: |) and Markdown's strong emphasis
// (**Password**: |), then the key's opening quote. Before (walk48 F3),
// only indentation came before the key, and a credential under a list
// item, a brace or a bold label was stored in clear. yamlKeyColumn finds
// where the key starts.
const yamlKeyStart = `[ \t]*(?:(?:-[ \t]|\{)[ \t]*)*` + mdBold + `["']?`

// yamlKeyEnd is what follows a key's name up to its value: its closing
// quote, Markdown's strong emphasis (before or after the colon), the
// colon and blanks.
const yamlKeyEnd = `["']?` + mdBold + `[ \t]*:` + mdBold + `[ \t]*`

// yamlKeyColumn is the column of the mapping that line's key belongs to:
// its indentation, and the dashes and blanks of the block sequence
// entries and the braces before the key (- password: |\n    x: the value
// is indented more than the key, 2, not more than the dash, 0). Markdown
// emphasis is no column.
func yamlKeyColumn(line string) int {
	i := indentOf(line)
	for i < len(line) && (line[i] == '{' || line[i] == '-' && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t')) {
		i++
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
	}
	return i
}

// yamlProperties are a block sequence entry's node properties (YAML 1.2.2
// §6.9): an anchor (&a) and a tag (!!str, !secret), in either order, and
// the blanks after them. They are kept; the scalar after them is the item.
var yamlProperties = regexp.MustCompile(`^(?:[&!]\S*(?:[ \t]+|$)){1,2}`)

// yamlBlockHeader is a block scalar's header (YAML 1.2.2 §8.1.1): a tag,
// '|' or '>', an indentation and a chomping indicator, and a comment. It
// is no value: the value is on the lines under it (yaml-credential-block).
// The escaped line break after it (\r\n, \n as text) may end it, as the
// assignment rule's value before such a break takes it (password:
// |\r\n  … in a log line: yaml53 found it stored password: [REDACTED]
// with the value under it kept).
var yamlBlockHeader = regexp.MustCompile(`^(?:!\S*[ \t]+)?[|>][1-9+-]{0,2}(?:[ \t]+#.*)?(?:\\r\\n|\\[nr])?$`)

// yamlHeading reports whether line, the key line of a block sequence,
// reads as a prose heading rather than a YAML key: one word with a capital
// and then lowercase letters only (Secrets:, Passwords:), as a Markdown
// list's heading is written. YAML keys are written in lower, snake or
// camel case (secrets:, api_keys:, imagePullSecrets:) or capitals (an
// environment's DB_PASSWORD:); a PascalCase key of one word (a
// CloudFormation Secrets:) is read as a heading too.
func yamlHeading(line string) bool {
	key, _, _ := strings.Cut(line[yamlKeyColumn(line):], ":")
	key = strings.Trim(key, "*_")
	if len(key) < 2 || key[0] < 'A' || key[0] > 'Z' {
		return false
	}
	for i := 1; i < len(key); i++ {
		if key[i] < 'a' || key[i] > 'z' {
			return false
		}
	}
	return true
}

// plainWord reports whether item is one word of letters (a hyphen or an
// apostrophe inside it, a capital only first, a '.', ',' or ';' after
// it), as a list item of prose is ("- family", "- Recipe."), unlike a
// generated secret (digits, symbols, capitals inside).
func plainWord(item string) bool {
	item = strings.TrimRight(item, ".,;")
	if item == "" {
		return false
	}
	for i, r := range item {
		switch {
		case unicode.IsLower(r):
		case unicode.IsUpper(r) && i == 0:
		case (r == '-' || r == '\'') && i > 0 && i < len(item)-1:
		default:
			return false
		}
	}
	return true
}

// yamlBlockScalar replaces the value of match, a credential name's block
// scalar (yaml-credential-block's match), by one line of RedactionMark at
// the value's indentation; the key's line and the lines after the value
// (indented no more than the key: the next key of a mapping the pattern
// took) stay. A value that is a placeholder or a reference stays whole.
func yamlBlockScalar(match string) string {
	nl := strings.IndexByte(match, '\n') + 1
	lines := strings.SplitAfter(match[nl:], "\n")
	value, end := yamlBlockValue(lines, yamlKeyColumn(match))
	return match[:nl] + value + strings.Join(lines[end:], "")
}

// yamlBlockValue returns what replaces a block scalar's value in lines
// (each with its line break), the lines after its header, and how many
// lines it replaces: the lines indented more than col (the column of the
// key, or of a block sequence entry's dash), blank lines between them,
// become one line of RedactionMark at the first one's indentation. A
// value that is a placeholder or a reference is given back as written.
func yamlBlockValue(lines []string, col int) (string, int) {
	var value []string
	indent, end := "", 0
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		if strings.TrimSpace(t) == "" {
			continue
		}
		if indentOf(t) <= col {
			break
		}
		if indent == "" {
			indent = t[:indentOf(t)]
		}
		value, end = append(value, strings.TrimSpace(t)), i+1
	}
	v := strings.Join(value, " ")
	if v == "" || !yamlComment(v) && placeholderValue(v) {
		return strings.Join(lines[:end], ""), end
	}
	last := lines[end-1]
	eol := last[len(strings.TrimRight(last, "\r\n")):]
	return indent + RedactionMark + eol, end
}

// indentOf is the number of blanks that start s.
func indentOf(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

// mayYAMLBlock reports whether s may hold a match of
// yaml-credential-block: a '|' or '>' and at most two indicators, then
// blanks and a line break or a comment. The rule shares the assignment
// rule's triggers, frequent words.
func mayYAMLBlock(s string) bool {
	for i := 0; i < len(s); i++ {
		j := strings.IndexAny(s[i:], "|>")
		if j < 0 {
			return false
		}
		i += j
		k := i + 1
		for n := 0; n < 2 && k < len(s) && strings.IndexByte("123456789+-", s[k]) >= 0; n++ {
			k++
		}
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k < len(s) && (s[k] == '\n' || s[k] == '\r' || s[k] == '#') {
			return true
		}
	}
	return false
}

// yamlPlainScalar replaces the value of match, a credential name's key
// left empty on its line then indented lines (yaml-credential-plain's
// match), by RedactionMark at the value's indentation when it is a plain
// scalar: the key's line, the blank and comment lines before the value
// and the lines after it (indented no more than the key) stay. A block
// sequence (- x: yaml-credential-list), a mapping (user: x), a
// placeholder, a reference or words (a blank inside the value, a trailing
// comment aside: prose under a heading) stay whole.
func yamlPlainScalar(match string) string {
	nl := strings.IndexByte(match, '\n') + 1
	keyIndent := yamlKeyColumn(match)
	lines := strings.SplitAfter(match[nl:], "\n")
	start := 0
	for start < len(lines) {
		t := strings.TrimSpace(lines[start])
		if t != "" && t[0] != '#' {
			break
		}
		start++
	}
	end := start
	for end < len(lines) && strings.TrimSpace(lines[end]) != "" && indentOf(lines[end]) > keyIndent {
		end++
	}
	if end == start {
		return match
	}
	first := strings.TrimSpace(lines[start])
	v := yamlCutComment(first)
	if end > start+1 || strings.HasPrefix(first, "- ") || first == "-" || yamlMapping.MatchString(first) ||
		strings.ContainsAny(v, " \t") && !yamlQuoted(v) || placeholderValue(v) {
		return match
	}
	last := lines[end-1]
	eol := last[len(strings.TrimRight(last, "\r\n")):]
	indent := lines[start][:indentOf(lines[start])]
	return match[:nl] + strings.Join(lines[:start], "") + indent + quotedMark(v) + eol + strings.Join(lines[end:], "")
}

// mayNamedValue reports whether s may hold a match of yaml-named-value:
// the keys name and value, in lowercase as Kubernetes writes them.
func mayNamedValue(s string) bool {
	return strings.Contains(s, "value") && strings.Contains(s, "name")
}

// yamlValueKey replaces the value of rest, a value key's line and the
// lines after it: a value on the key's line by RedactionMark (in its
// quotes, a comment after it going too), a block scalar or a plain scalar
// under the key as yaml-credential-block and -plain replace them. A
// placeholder or a reference stays.
func yamlValueKey(rest string) string {
	line, after, broken := strings.Cut(rest, "\n")
	_, v, _ := strings.Cut(line, ":")
	v = strings.TrimSpace(strings.TrimSuffix(v, "\r"))
	switch {
	case v == "" || yamlComment(v):
		return yamlPlainScalar(rest)
	case yamlBlockHeader.MatchString(v):
		return yamlBlockScalar(rest)
	}
	v = yamlCutComment(v)
	if placeholderValue(v) {
		return rest
	}
	i := strings.Index(line, ":") + 1
	i += indentOf(line[i:])
	eol := ""
	if strings.HasSuffix(line, "\r") {
		line, eol = line[:len(line)-1], "\r"
	}
	if broken {
		eol += "\n"
	}
	return line[:i] + quotedMark(v) + eol + after
}

// yamlCutComment is v, a YAML value's text on its line, blanks trimmed,
// without its trailing comment (" # …"). A " #" inside a quoted scalar
// is the value's own text: value: " #hunter2" holds no comment, and an
// unclosed quote (its scalar goes on to the next line) holds none on this
// line. Before, v was cut at its first " #" whatever the quotes: " #hunter2"
// became a lone quote, which placeholderValue keeps (a scalar opened at a
// line's end), and the secret was stored in clear.
func yamlCutComment(v string) string {
	from := 0
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		from = yamlQuoteEnd(v)
		if from < 0 {
			return strings.TrimSpace(v)
		}
	}
	if c := strings.Index(v[from:], " #"); c >= 0 {
		v = v[:from+c]
	}
	return strings.TrimSpace(v)
}

// yamlQuoted reports whether v is one closed quoted scalar (" #hunter2"):
// a value, its blanks its own, not words (yamlProse reads a quoted item
// so too).
func yamlQuoted(v string) bool {
	return v != "" && (v[0] == '"' || v[0] == '\'') && yamlQuoteEnd(v) == len(v)
}

// yamlQuoteEnd is the index just past the quote closing the quoted scalar
// v begins with (double: a backslash escapes the next byte; single: a doubled
// quote is one), or -1 when v does not close it.
func yamlQuoteEnd(v string) int {
	q := v[0]
	for i := 1; i < len(v); i++ {
		switch {
		case q == '"' && v[i] == '\\':
			i++
		case v[i] == q && q == '\'' && i+1 < len(v) && v[i+1] == '\'':
			i++
		case v[i] == q:
			return i + 1
		}
	}
	return -1
}
