package engine

import (
	"regexp"
	"strings"
)

// credentialTriggers are the assignment rule's triggers: every credential
// name (credentialNames) holds one, in lowercase.
var credentialTriggers = append([]string{"passw", "passphrase", "passcode", "keypass", "_pass", ".pass", "-pass",
	"'pass", `"pass`, "?pass", "&pass", "pwd", "secret", "token", "key", "cred", "contrase"}, foreignTriggers...)

// fileRules recognise credentials by the layout of the files that hold
// them, where no assignment shows the value: a YAML block sequence or
// block scalar under a credential name (also with its line breaks
// escaped, yamlEscapedRule), a .netrc entry.
func fileRules() []Rule {
	return append(yamlRules(), yamlEscapedRule(), continuedValueRule(), netrcRule())
}

// yamlRules recognise a credential in YAML: a block sequence, a block
// scalar or a plain scalar under a credential key, a Kubernetes env
// entry's value.
func yamlRules() []Rule {
	return []Rule{
		// YAML 1.2.2 §8.2.1 "Block Sequences": a key holding a credential
		// name (db_password, "secrets") alone on its line but for its
		// indentation, a colon and a comment, then lines of "- item"
		// (password:\n  - hunter2), with blank and comment lines before
		// and between them. Each item that is a scalar is replaced
		// (yamlListItems), after its anchor and tag (- &a x, - !!str x);
		// an item that is a mapping (- name: x, Kubernetes'
		// imagePullSecrets), an alias, a placeholder or prose (a bare
		// item of several words) stays. The key starts its line so that
		// prose introducing a Markdown list ("To reset your password:\n-
		// open Settings") is no key, and a key written as a heading
		// (Secrets:) keeps its items that are plain words (yamlHeading).
		// An item that is a block scalar (- |, - >-) takes the indented
		// lines under it (yamlListBlock).
		{Name: "yaml-credential-list",
			Pattern: yamlCredentialList, Triggers: credentialTriggers, rewrite: yamlListItems, may: mayYAMLList},
		// YAML 1.2.2 §8.1 "Block Scalar Styles": a key ending in a
		// credential name, then a literal (|) or folded (>) block scalar
		// (client_secret: >-\n  abc…): the indented lines under it are
		// the value, replaced by one line of RedactionMark
		// (yamlBlockScalar); a placeholder or reference stays.
		{Name: "yaml-credential-block",
			Pattern: mustRe(`(?im)^` + yamlKeyStart + `[\w.-]*(?:` + credentialNames + `)s?` + yamlKeyEnd + `(?:![^\s]*[ \t]+)?[|>][1-9+-]{0,2}[ \t]*(?:#[^\r\n]*)?\r?\n` +
				`(?:[ \t]*\r?\n)*(?:[ \t]+\S[^\r\n]*(?:\r?\n|\z)(?:[ \t]*\r?\n)*)+`),
			Triggers: credentialTriggers, rewrite: yamlBlockScalar, may: mayYAMLBlock},
		// YAML 1.2.2 §7.3.3 "Plain Style": a key ending in a credential
		// name left empty on its line (a comment aside), then the value
		// as a plain scalar on the lines indented under it
		// (password:\n  hunter2secret, after blank and comment lines
		// too): replaced by RedactionMark (yamlPlainScalar). A list, a
		// mapping, a placeholder, a reference or words (a blank inside)
		// stay. A note between the name and its colon counts, as the
		// assignment-qualified rule reads one (Password (home wifi):\n
		// hunter2secret: red73, stored in clear).
		{Name: "yaml-credential-plain",
			Pattern: mustRe(`(?im)^` + yamlKeyStart + `[\w.-]*(?:` + credentialNames + `)s?(?:` + qualifier + `)?` + yamlKeyEnd + `(?:#[^\r\n]*)?\r?\n` +
				yamlGap + `(?:[ \t]+[^\s#][^\r\n]*(?:\r?\n|\z))+`),
			Triggers: credentialTriggers, rewrite: yamlPlainScalar, may: mayYAMLKeyAlone},
		// Kubernetes' EnvVar (a container's env: list, API reference
		// "EnvVar v1 core"): a name ending in a credential name and a
		// value key at the same column, in either order, other keys of
		// the entry between them (- name: DB_PASSWORD\n    valueFrom:
		// x\n    value: hunter2secret), the value on its line, as a block
		// scalar or as a plain scalar under it: replaced as for a
		// credential key (yamlEnvEntries). The JSON form ({"name":
		// "DB_PASSWORD", "value": …}) is docWalk.namedBy's.
		{Name: "yaml-named-value", Pattern: yamlEnvStart,
			Triggers: credentialTriggers, rewrite: yamlEnvEntries, may: mayNamedValue},
	}
}

// netrcRule recognises a .netrc entry's password.
func netrcRule() Rule {
	return Rule{
		// .netrc (GNU Inetutils manual, "The .netrc file"; curl's
		// "netrc"): tokens apart by blanks or line breaks, "machine NAME"
		// or "default", then login, account, port and password in any
		// order. "default" counts only at the start of a line (also one
		// escaped as \n): in prose it is an ordinary word ("the default
		// login page password reset"). The password is replaced when a
		// login, account or port comes before it or a login or account
		// after it (keywords are lowercase, so prose seldom holds the run:
		// "machine x login y password z"); a quoted password ("…") keeps
		// its quotes.
		Name: "netrc",
		Pattern: mustRe(`(?P<keep>(?:\bmachine\s+\S+|` + netrcDefault + `)(?:\s+(?:login|account|port)\s+\S+)+\s+password\s+)(?:(?P<q>")[^"\r\n]*"|` + bareByte + `+)` +
			`|(?P<keep>(?:\bmachine\s+\S+|` + netrcDefault + `)\s+password\s+)(?:(?P<q>")[^"\r\n]*"|` + bareByte + `+)(?P<after>\s+(?:login|account)\s)`),
		Replacement: "${keep}${q}" + RedactionMark + "${q}${after}", Triggers: []string{"password"}, may: mayNetrc,
	}
}

// yamlCredentialList is yaml-credential-list's pattern: a credential
// key's line, then block sequence entries, blank and comment lines; an
// entry that is a block scalar's header (- |, - !!binary >-) with the
// indented lines after it, its value and whatever follows indented
// (yamlListItems tells them apart by their column).
var yamlCredentialList = mustRe(`(?im)^` + yamlKeyStart + `[\w.-]*(?:` + credentialNames + `)[\w.-]*` + yamlKeyEnd + `(?:#[^\r\n]*)?\r?\n` +
	yamlGap + `(?:(?:` + yamlBlockEntry + `|` + yamlQuotedEntry + `|[ \t]*` + listBullet + `[ \t]+[^\r\n]*(?:\r?\n|\z))` + yamlGap + `)+`)

// yamlBlockEntry is a block sequence entry that is a block scalar (YAML
// 1.2.2 §8.2.1, §8.1.1): a bullet, node properties, a block header on
// its line, then the indented lines after it, blank lines between them.
const yamlBlockEntry = `[ \t]*` + listBullet + `[ \t]+(?:[&!]\S*[ \t]+){0,2}[|>][1-9+-]{0,2}[ \t]*(?:#[^\r\n]*)?\r?\n` +
	`(?:[ \t]*\r?\n)*(?:[ \t]+\S[^\r\n]*(?:\r?\n|\z)(?:[ \t]*\r?\n)*)+`

// yamlQuotedEntry is a block sequence entry that is a quoted scalar
// going on past its line (YAML 1.2.2 §7.3.1, §7.3.2: a flow scalar's
// lines fold into one value): a bullet, node properties, a quote left
// open on its line, then indented or blank lines holding no quote, and
// the indented line holding the closing one (- "\n    hunter2secret").
// yamlListItems checks the quote closes there.
const yamlQuotedEntry = `[ \t]*` + listBullet + `[ \t]+(?:[&!]\S*[ \t]+){0,2}["'][^"'\r\n]*\r?\n` +
	`(?:[ \t]*\r?\n|[ \t]+[^"'\r\n]*\r?\n)*[ \t]+[^"'\r\n]*["'][^\r\n]*(?:\r?\n|\z)`

// yamlNameKey is a name key whose value, on its line, ends in a
// credential name (name: DB_PASSWORD, "name": 'api_token' # c), as a
// Kubernetes env entry names the variable its value key sets.
const yamlNameKey = `["']?name["']?[ \t]*:[ \t]*["']?[\w.-]*(?i:` + credentialNames + `)["']?[ \t]*(?:#[^\r\n]*)?`

// yamlNameLine is a line holding only a name key whose value ends in a
// credential name (yamlNameKey), with no line break.
var yamlNameLine = regexp.MustCompile(`^[ \t]*` + yamlNameKey + `\r?$`)

// mayNetrc reports whether s may hold a .netrc entry: every match holds
// "machine" or "default" (lowercase, as the keywords are). The pattern
// has no literal start and its trigger, password, is a frequent word: it
// cost a sixth of the redaction of ordinary turns (the synthetic texts of
// BenchmarkRedact) without this look.
func mayNetrc(s string) bool {
	return strings.Contains(s, "machine") || strings.Contains(s, "default")
}

// netrcDefault is .netrc's "default" entry at the start of a line (or
// after a line break escaped as \n), with the blanks before it.
const netrcDefault = `(?m:^)[ \t]*default\b|\\n[ \t]*default\b`

// mayYAMLList reports whether s may hold a match of yaml-credential-list:
// a "- " and a colon followed by blanks and a line break or a comment.
// The rule shares the assignment rule's triggers, frequent words (key,
// token), and its pattern cost a quarter of the redaction of ordinary
// turns without this look (TestRedactPrefilter's synthetic texts).
func mayYAMLList(s string) bool {
	if !strings.Contains(s, "- ") && !strings.Contains(s, "-\t") && !strings.Contains(s, "* ") && !strings.Contains(s, "– ") {
		return false
	}
	return mayYAMLKeyAlone(s)
}

// mayYAMLKeyAlone reports whether s holds a colon followed by blanks and a
// line break or a comment, as a YAML key whose value is on the lines under
// it (yaml-credential-list, yaml-credential-plain).
func mayYAMLKeyAlone(s string) bool {
	return anyAfterColon(s, func(_ int, rest string) bool {
		return rest != "" && strings.IndexByte("\n\r#", rest[0]) >= 0
	})
}

// anyAfterColon reports whether at holds after some colon of s: blanks is
// how many spaces and tabs follow the colon, rest what follows them (""
// at the end of s). The prefilters of the rules after a colon use it
// (mayYAMLKeyAlone, mayProse).
func anyAfterColon(s string, at func(blanks int, rest string) bool) bool {
	for i := strings.IndexByte(s, ':'); i >= 0; {
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if at(j-i-1, s[j:]) {
			return true
		}
		k := strings.IndexByte(s[j:], ':')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// yamlItem is one line of a YAML block sequence: its indentation and dash
// (group 1), the item (group 2) and the line break (group 3).
var yamlItem = regexp.MustCompile(`^([ \t]*` + listBullet + `[ \t]+)([^\r\n]*?)[ \t]*(\r?\n|\z)`)

// listBullet is a list item's mark: YAML's '-', and Markdown's '*' and
// the en dash a model writes for a bullet (tokens:\n  * x, tokens:\n  – x;
// walk48: those items were stored in clear). An alias (*a) has no blank
// after its '*'.
const listBullet = `(?:-|\*|–)`

// yamlMapping is an item that is a mapping (key: value), not a scalar.
var yamlMapping = regexp.MustCompile(`^[\w.-]+[ \t]*:(?:[ \t]|$)`)

// yamlListItems replaces each scalar item of match, a credential name's
// block sequence (yaml-credential-list's match), by RedactionMark, inside
// its quotes when it is quoted; the name's line, an item's anchor and tag,
// blank and comment lines and every other byte stay.
func yamlListItems(match string) string {
	nl := strings.IndexByte(match, '\n') + 1
	heading := yamlHeading(match[:nl])
	out := []byte(match[:nl])
	for rest := match[nl:]; rest != ""; {
		m := yamlItem.FindStringSubmatchIndex(rest)
		if m == nil {
			end := strings.IndexByte(rest, '\n') + 1
			if end == 0 {
				end = len(rest)
			}
			if t := strings.TrimSpace(rest[:end]); t != "" && t[0] != '#' {
				// The list ended with a block entry's value: the lines
				// after it are no entries, but may hold another list.
				return string(out) + yamlCredentialList.ReplaceAllStringFunc(rest, yamlListItems)
			}
			out, rest = append(out, rest[:end]...), rest[end:] // a blank or comment line (yamlGap)
			continue
		}
		props := yamlProperties.FindString(rest[m[4]:m[5]])
		if bareAnchor(props, rest[m[4]:m[5]], match) {
			props = "" // - &hunter2secret: a value, not an anchor
		}
		item := rest[m[4]+len(props) : m[5]]
		out = append(out, rest[:m[4]+len(props)]...)
		if yamlBlockHeader.MatchString(item) && m[1] > 0 && rest[m[1]-1] == '\n' {
			// - |: the value is on the lines indented more than the dash.
			lines := strings.SplitAfter(rest[m[1]:], "\n")
			value, end := yamlBlockValue(lines, indentOf(rest))
			out = append(append(out, rest[m[4]+len(props):m[1]]...), value...)
			rest = strings.Join(lines[end:], "")
			continue
		}
		if n, with := yamlQuotedItem(rest[m[4]+len(props):], indentOf(rest), heading); n > 0 {
			out, rest = append(out, with...), rest[m[4]+len(props)+n:]
			continue
		}
		if yamlKeptItem(item, heading) {
			out = append(out, rest[m[4]+len(props):m[1]]...)
		} else {
			out = append(append(out, quotedMark(item)...), rest[m[5]:m[1]]...)
		}
		rest = rest[m[1]:]
	}
	return string(out)
}

// yamlQuotedItem reads item, a block sequence entry's text from its
// opening quote on, when the quoted scalar goes on past its line: it
// returns how many bytes the scalar takes, up to its closing quote on a
// later line, and what replaces them, RedactionMark in its quotes, or the
// scalar as written when its folded value is kept (yamlKeptItem); a
// comment after the closing quote goes with a replaced scalar, as an
// item's on its line does. It returns 0 when the quote closes on its line, or not on a line indented
// more than col (the dash's column), a line between aside.
func yamlQuotedItem(item string, col int, heading bool) (int, string) {
	line, _, _ := strings.Cut(item, "\n")
	if item == "" || item[0] != '"' && item[0] != '\'' || yamlQuoteEnd(line) >= 0 {
		return 0, ""
	}
	n := yamlQuoteEnd(item)
	if n < 0 {
		return 0, ""
	}
	for _, l := range strings.Split(item[:n], "\n")[1:] {
		if strings.TrimSpace(l) != "" && indentOf(l) <= col {
			return 0, ""
		}
	}
	q := item[:1]
	folded := q + strings.Join(strings.Fields(item[1:n-1]), " ") + q
	if yamlKeptItem(folded, heading) {
		return n, item[:n]
	}
	tail, _, _ := strings.Cut(item[n:], "\n")
	if c := strings.TrimLeft(strings.TrimSuffix(tail, "\r"), " \t"); c != "" && c[0] == '#' {
		n += len(strings.TrimSuffix(tail, "\r")) // a comment goes with the item, as on one line
	}
	return n, q + RedactionMark + q
}

// bareAnchor reports whether item, a block sequence's entry, is only an
// anchor (props, &name) that no alias in match (*name) refers to: a
// value starting with '&' rather than an anchor on an empty node, which
// nothing would use (walk48: tokens:\n  - &hunter2secret was kept whole).
func bareAnchor(props, item, match string) bool {
	p := strings.TrimSpace(props)
	return p == item && strings.HasPrefix(p, "&") && !strings.ContainsAny(p, " \t") &&
		!strings.Contains(match, "*"+p[1:])
}

// yamlKeptItem reports whether item, a block sequence's entry after its
// properties, is no secret: empty, a mapping, an alias (*a: the anchored
// node is redacted where it is written), a placeholder, prose, or a plain
// word under a heading (yamlHeading).
func yamlKeptItem(item string, heading bool) bool {
	return item == "" || item[0] == '*' || yamlMapping.MatchString(item) || placeholderValue(item) ||
		yamlProse(item) || heading && plainWord(item)
}

// yamlProse reports whether item, a block sequence's scalar, is prose
// rather than a secret: unquoted, with a blank inside its value (a
// trailing comment, " # …", aside), as a Markdown bullet's words are
// ("- open Settings"). A quoted item ('my pass word') is a value.
func yamlProse(item string) bool {
	if item[0] == '"' || item[0] == '\'' {
		return false
	}
	if i := strings.Index(item, " #"); i >= 0 {
		item = item[:i]
	}
	if i := strings.Index(item, "\t#"); i >= 0 {
		item = item[:i]
	}
	return strings.ContainsAny(strings.TrimSpace(item), " \t")
}

// quotedMark is RedactionMark in v's quotes when v is quoted ("…", '…').
func quotedMark(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[:1] + RedactionMark + v[:1]
	}
	return RedactionMark
}
