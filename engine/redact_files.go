package engine

import (
	"regexp"
	"strings"
)

// credentialTriggers are the assignment rule's triggers: every credential
// name (credentialNames) holds one, in lowercase.
var credentialTriggers = []string{"passw", "passphrase", "passcode", "keypass", "_pass", ".pass", "-pass",
	"'pass", `"pass`, "?pass", "&pass", "pwd", "secret", "token", "key", "cred", "contrase"}

// fileRules recognise credentials by the layout of the files that hold
// them, where no assignment shows the value: a YAML block sequence under a
// credential name, a .netrc entry.
func fileRules() []Rule {
	return []Rule{
		// YAML 1.2.2 §8.2.1 "Block Sequences": a key holding a credential
		// name (db_password, "secrets") alone on its line but for its
		// indentation, a colon and a comment, then lines of "- item"
		// (password:\n  - hunter2). Each item that is a scalar is
		// replaced (yamlListItems); an item that is a mapping (- name: x,
		// Kubernetes' imagePullSecrets), a placeholder or prose (a bare
		// item of several words) stays. The key starts its line so that
		// prose introducing a Markdown list ("To reset your password:\n-
		// open Settings") is no key.
		{Name: "yaml-credential-list",
			Pattern: mustRe(`(?im)^[ \t]*["']?[\w.-]*(?:` + credentialNames + `)[\w.-]*["']?[ \t]*:[ \t]*(?:#[^\r\n]*)?\r?\n` +
				`(?:[ \t]*-[ \t]+[^\r\n]*(?:\r?\n|\z))+`),
			Triggers: credentialTriggers, rewrite: yamlListItems, may: mayYAMLList},
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
		{Name: "netrc",
			Pattern: mustRe(`(?P<keep>(?:\bmachine\s+\S+|` + netrcDefault + `)(?:\s+(?:login|account|port)\s+\S+)+\s+password\s+)(?:(?P<q>")[^"\r\n]*"|` + bareByte + `+)` +
				`|(?P<keep>(?:\bmachine\s+\S+|` + netrcDefault + `)\s+password\s+)(?:(?P<q>")[^"\r\n]*"|` + bareByte + `+)(?P<after>\s+(?:login|account)\s)`),
			Replacement: "${keep}${q}" + RedactionMark + "${q}${after}", Triggers: []string{"password"}, may: mayNetrc},
	}
}

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
	if !strings.Contains(s, "- ") && !strings.Contains(s, "-\t") {
		return false
	}
	for i := strings.IndexByte(s, ':'); i >= 0; {
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && (s[j] == '\n' || s[j] == '\r' || s[j] == '#') {
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
var yamlItem = regexp.MustCompile(`^([ \t]*-[ \t]+)([^\r\n]*?)[ \t]*(\r?\n|\z)`)

// yamlMapping is an item that is a mapping (key: value), not a scalar.
var yamlMapping = regexp.MustCompile(`^[\w.-]+[ \t]*:(?:[ \t]|$)`)

// yamlListItems replaces each scalar item of match, a credential name's
// block sequence (yaml-credential-list's match), by RedactionMark, inside
// its quotes when it is quoted; the name's line and every other byte stay.
func yamlListItems(match string) string {
	nl := strings.IndexByte(match, '\n') + 1
	out := []byte(match[:nl])
	for rest := match[nl:]; rest != ""; {
		m := yamlItem.FindStringSubmatchIndex(rest)
		if m == nil { // cannot happen: the pattern matched item lines only
			return string(append(out, rest...))
		}
		item := rest[m[4]:m[5]]
		out = append(out, rest[:m[4]]...)
		if item == "" || yamlMapping.MatchString(item) || placeholderValue(item) || yamlProse(item) {
			out = append(out, rest[m[4]:m[1]]...)
		} else {
			out = append(append(out, quotedMark(item)...), rest[m[5]:m[1]]...)
		}
		rest = rest[m[1]:]
	}
	return string(out)
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
