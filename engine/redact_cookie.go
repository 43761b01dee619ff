package engine

import (
	"regexp"
	"strings"
)

// cookieRule recognises the values of an HTTP Cookie or Set-Cookie header
// line (RFC 6265 §4.2.1 cookie-string, §4.1.1 set-cookie-string): a
// session cookie is a bearer credential, whatever its name. Before
// (red67), only a value whose name was a credential word (token=…) was
// replaced, and Cookie: sessionid=… was stored in clear. The names, the
// attributes of Set-Cookie (Path, Domain, Expires, …) and the text around
// stay (cookieValues); prose naming a cookie (the cookie policy, Cookie:
// chocolate chip) has no name=value pair after the header's colon and
// stays.
func cookieRule() Rule {
	return Rule{Name: "cookie", Pattern: cookieHeader, Triggers: []string{"cookie"}, rewrite: cookieValues}
}

// cookiePair is a cookie-pair: a token, '=', a value of cookie-octets
// (no blank, double quote, comma, semicolon, backslash, nor an
// apostrophe: a shell's closing quote) or one in double quotes.
const cookiePair = "[!#$%&*+.^_`|~0-9A-Za-z-]+=(?:\"[^\"\\r\\n;]*\"|[^;\\s\",\\\\']*)"

// cookieHeader is cookieRule's pattern: the field name Cookie or
// Set-Cookie, any case, at a line's start or after a blank, a quote or a
// bracket (curl -H 'Cookie: …', a JSON header map's "Cookie": "…"), in
// double quotes, single quotes or none (Python's {'Cookie': '…'}, a
// JavaScript object's {Cookie: '…'}: rev68, they were stored in clear),
// its colon, then the pairs apart by ';' (group pairs).
var cookieHeader = regexp.MustCompile(`(?im)(?:^|[ \t"'{(,\[])(?P<set>set-)?cookie["']?[ \t]*:[ \t]*["']?` +
	`(?P<pairs>` + cookiePair + `(?:;[ \t]*` + cookiePair + `)*)`)

// cookieValues is cookieRule's rewrite: each value of the match's pairs
// becomes RedactionMark (a quoted one keeps its quotes), the first pair's
// only after Set-Cookie (the others are its attributes). A value kept
// as cookieKept says stays.
func cookieValues(match string) string {
	m := cookieHeader.FindStringSubmatchIndex(match)
	if m == nil {
		return match
	}
	set, at := m[2*cookieHeader.SubexpIndex("set")] >= 0, m[2*cookieHeader.SubexpIndex("pairs")]
	var b strings.Builder
	b.WriteString(match[:at])
	for i, p := range strings.Split(match[at:], ";") {
		if i > 0 {
			b.WriteByte(';')
		}
		name, v, _ := strings.Cut(p, "=")
		b.WriteString(name + "=")
		if (set && i > 0) || cookieKept(v) {
			b.WriteString(v)
			continue
		}
		if strings.HasPrefix(v, `"`) {
			b.WriteString(`"` + RedactionMark + `"`)
			continue
		}
		b.WriteString(RedactionMark)
	}
	return b.String()
}

// cookieKept reports whether v, a cookie's value, stays: shorter than 4
// characters (lang=en, a=1) or as a server clears a cookie (deleted), a
// placeholder or a reference ($SID, <value>, [REDACTED]) or the word
// value of an example (Cookie: name=value).
func cookieKept(v string) bool {
	u := strings.Trim(v, `"`)
	if len(u) < 4 || placeholderValue(u) {
		return true
	}
	switch strings.ToLower(strings.TrimRight(u, "0123456789")) {
	case "deleted", "value", "val", "xxxx":
		return true
	}
	return false
}
