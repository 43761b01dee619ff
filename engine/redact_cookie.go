package engine

import (
	"regexp"
	"strings"
)

// cookieRules recognise the values of cookies, a session cookie being a
// bearer credential whatever its name: those of an HTTP Cookie or
// Set-Cookie header line (RFC 6265 §4.2.1 cookie-string, §4.1.1
// set-cookie-string), of curl's -b/--cookie name=value (curl(1): an
// argument holding '=' is cookie data, one without it a file), of a
// script's document.cookie = "name=value; path=/" (a Set-Cookie string)
// and of a cookie map, cookies = {'name': 'value'} (Python requests'
// cookies=, a JSON or JavaScript object under a key cookies). Before
// (red67), only a value whose name was a credential word (token=…) was
// replaced, and Cookie: sessionid=… was stored in clear; curl's, the
// script's and the map's until red70. The names, the attributes of
// Set-Cookie (Path, Domain, Expires, …) and the text around stay
// (cookieValues); prose naming a cookie (the cookie policy, Cookie:
// chocolate chip, Cookie: chocolate=chip and milk: cookieProse) stays.
func cookieRules() []Rule {
	return []Rule{
		{Name: "cookie", Pattern: cookieHeader, Triggers: []string{"cookie"}, verifyIn: notCookieProse,
			rewrite: cookieValues(cookieHeader)},
		{Name: "cookie-option", Pattern: cookieOption, Triggers: []string{"curl", "--cookie"},
			rewrite: cookieValues(cookieOption)},
		{Name: "cookie-script", Pattern: cookieScript, Triggers: []string{"document.cookie"},
			rewrite: cookieValues(cookieScript)},
		{Name: "cookie-map", Pattern: cookieMap, Triggers: []string{"cookies"}, rewrite: cookieMapValues},
	}
}

// cookiePair is a cookie-pair: a token, '=', a value of cookie-octets
// (no blank, double quote, comma, semicolon, backslash, nor an
// apostrophe: a shell's closing quote) or one in double quotes.
const cookiePair = "[!#$%&*+.^_`|~0-9A-Za-z-]+=(?:\"[^\"\\r\\n;]*\"|[^;\\s\",\\\\']*)"

// cookiePairs is cookiePair, then more apart by ';' and blanks (group
// pairs).
const cookiePairs = `(?P<pairs>` + cookiePair + `(?:;[ \t]*` + cookiePair + `)*)`

// cookieHeader is the cookie rule's pattern: the field name Cookie or
// Set-Cookie, any case, at a line's start or after a blank, a quote or a
// bracket (curl -H 'Cookie: …', a JSON header map's "Cookie": "…"), in
// double quotes, single quotes or none (Python's {'Cookie': '…'}, a
// JavaScript object's {Cookie: '…'}: rev68, they were stored in clear),
// its colon, then the pairs (group set: Set-Cookie, whose pairs after
// the first are attributes).
var cookieHeader = regexp.MustCompile(`(?im)(?:^|[ \t"'{(,\[])(?P<set>set-)?cookie["']?[ \t]*:[ \t]*["']?` + cookiePairs)

// cookieOption is the cookie-option rule's pattern: curl's -b after curl
// on the line (no pipe, ';' or '&' between), or --cookie after a blank,
// its value after blanks (glued, for -b) or '=', quoted or not, then the
// pairs. A file name (-b jar.txt) holds no '=' and is no pair.
var cookieOption = regexp.MustCompile(`(?:\bcurl\b[^\r\n|;&]*?[ \t]-b[ \t]*|[ \t]--cookie(?:[ \t]+|=))["']?` + cookiePairs)

// cookieScript is the cookie-script rule's pattern: document.cookie, '=',
// a quote (also JSON-escaped, or a template literal's backtick), then
// the pairs of one Set-Cookie string (group set: its pairs after the
// first are attributes).
var cookieScript = regexp.MustCompile("document\\.cookie[ \\t]*=[ \\t]*(?P<set>\\\\?[\"'`])" + cookiePairs)

// cookieValues returns a rewrite for re, a pattern holding group pairs
// (and maybe set): each value of the match's pairs becomes
// RedactionMark (a quoted one keeps its quotes), the first pair's only
// when group set took part (the others are a Set-Cookie's attributes).
// A value kept as cookieKept says stays.
func cookieValues(re *regexp.Regexp) func(match string) string {
	setAt, pairsAt := re.SubexpIndex("set"), re.SubexpIndex("pairs")
	return func(match string) string {
		m := re.FindStringSubmatchIndex(match)
		if m == nil {
			return match
		}
		set, at := setAt >= 0 && m[2*setAt] >= 0, m[2*pairsAt]
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
			b.WriteString(quotedMark(v))
		}
		return b.String()
	}
}

// cookieKept reports whether v, a cookie's value, stays: shorter than 4
// characters (lang=en, a=1) or as a server clears a cookie (deleted), a
// placeholder or a reference ($SID, <value>, [REDACTED]), the word
// value of an example (Cookie: name=value) or a consent choice
// (granted, denied, accepted, …: a consent banner's map,
// {"cookies": {"analytics": "granted"}}, red73).
func cookieKept(v string) bool {
	u := strings.Trim(v, `"'`)
	if len(u) < 4 || placeholderValue(u) {
		return true
	}
	switch strings.ToLower(strings.TrimRight(u, "0123456789")) {
	case "deleted", "value", "val", "xxxx",
		"granted", "denied", "accepted", "rejected", "allowed", "blocked", "enabled", "disabled", "necessary", "dismissed":
		return true
	}
	return false
}

// notCookieProse is the cookie rule's verifyIn: a header's pairs are
// the rest of its value, so a match followed on its line by a blank and
// a word whose every value is a word of lowercase letters is prose
// ("cookie: chocolate=chip and milk", red70: stored "chip" replaced). A
// value holding a digit, a capital or a symbol is replaced with the
// words after it (Cookie: sid=abc123def in the request).
func notCookieProse(s string, m []int) bool {
	rest := s[m[1]:]
	blank := len(rest) - len(strings.TrimLeft(rest, " \t"))
	if blank == 0 || blank == len(rest) || !isAlnum(rest[blank]) {
		return true
	}
	pairs := s[m[2*cookieHeader.SubexpIndex("pairs")]:m[1]]
	for p := range strings.SplitSeq(pairs, ";") {
		_, v, _ := strings.Cut(p, "=")
		if !cookieKept(v) && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz") != "" {
			return true
		}
	}
	return false
}

// cookieMapEntry is one entry of a cookie map: a name (quoted, or an
// identifier as a JavaScript object writes it), a colon, and a value in
// double or single quotes on the name's line (group v).
const cookieMapEntry = `(?:"[^"\r\n]*"|'[^'\r\n]*'|[A-Za-z_$][A-Za-z0-9_$-]*)[ \t]*:[ \t]*(?P<v>"[^"\r\n]*"|'[^'\r\n]*')`

// cookieMap is the cookie-map rule's pattern: a name ending in cookies
// (any case: cookies=, COOKIES =, "cookies": , session.cookies.update(),
// its quote, then '=', ':' or .update(, a Python dict( or none, '{', and
// the entries apart by ',' (and line breaks: curlconverter writes one a
// line), group entries.
var cookieMap = regexp.MustCompile(`(?i)cookies["']?[ \t]*(?:=|:|\.update\()[ \t]*(?:dict\()?\{` +
	`(?P<entries>(?:\s*` + cookieMapEntry + `[ \t]*,)*\s*` + cookieMapEntry + `)`)

// cookieMapEntryRe finds the entries of a cookieMap match.
var cookieMapEntryRe = regexp.MustCompile(cookieMapEntry)

// cookieMapValues is the cookie-map rule's rewrite: the value of each
// entry becomes RedactionMark in its quotes, unless cookieKept keeps it
// or it holds a blank, which no cookie value does (RFC 6265 §4.1.1
// cookie-octet: the cookies: {'oatmeal': 'raisin and chocolate'} of a
// recipe stays).
func cookieMapValues(match string) string {
	at := cookieMap.FindStringSubmatchIndex(match)[2*cookieMap.SubexpIndex("entries")]
	v := cookieMapEntryRe.SubexpIndex("v")
	var b strings.Builder
	last := 0
	for _, m := range cookieMapEntryRe.FindAllStringSubmatchIndex(match[at:], -1) {
		from, to := at+m[2*v], at+m[2*v+1]
		if val := match[from:to]; !cookieKept(val) && !strings.ContainsAny(val, " \t") {
			b.WriteString(match[last:from] + quotedMark(val))
			last = to
		}
	}
	b.WriteString(match[last:])
	return b.String()
}
