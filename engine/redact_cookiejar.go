package engine

import "strings"

// A JSON document's cookies are under a key ending in "cookies" or
// "cookie" (any case, '_' and '-' aside): a map of names to values
// ({"cookies": {"sessionid": "…"}}, as the text's cookie-map rule reads
// one), a list of cookie objects, each with a "name" and a "value"
// member in either order (an HAR request's or response's "cookies",
// Playwright's storageState, a browser's cookie export under
// "cookies"), or a string of name=value pairs, read as a Cookie header's
// ({"cookies": "sid=…"}; "Set-Cookie"'s after set_cookie, setCookie).
// An object with a "name", a "value", a "domain" and a "path" member is
// a cookie wherever it is (a browser extension's export, EditThisCookie's, is
// a list of them and nothing else; Selenium's get_cookies() returns
// one); a DNS record's {"domain", "name", "value", "type"} has no path.
// redactDocument redacts a document string by string, so a value
// there was seen without its name and stored in clear (red71; the
// string, the singular key and the list with no key until red73);
// docWalk.cookieJar, cookieString and cookieObjects note them.

// cookiesKey reports whether key, a JSON object's key, ends in "cookies"
// or "cookie", any case, '_' and '-' aside (cookies, requestCookies,
// session.cookies, cookie, set_cookie); "cookie_consent" does not.
func cookiesKey(key string) bool {
	k := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(key))
	return strings.HasSuffix(k, "cookies") || strings.HasSuffix(k, "cookie")
}

// cookieString returns v, the string value of a key cookiesKey accepts,
// with the values of its name=value pairs replaced as a Cookie header
// line's are (the cookie rule: names, short and placeholder values and
// prose stay), or a Set-Cookie line's after a key starting with
// set (set_cookie, setCookie: the pairs after the first are attributes).
func (w *docWalk) cookieString(key, v string) string {
	header := "Cookie: "
	if strings.HasPrefix(strings.ToLower(key), "set") {
		header = "Set-Cookie: "
	}
	red := w.r.redactText(header + v)
	if !strings.HasPrefix(red, header) {
		return v
	}
	return red[len(header):]
}

// cookieAttributes are the members of a cookie object, or of a cookie's
// settings (express-session's cookie: {domain, path, maxAge, …}), that
// are no cookie's value: a map under a cookie key keeps them.
var cookieAttributes = map[string]bool{"domain": true, "path": true, "expires": true, "maxage": true,
	"samesite": true, "secure": true, "httponly": true, "name": true, "priority": true, "partitioned": true,
	"hostonly": true, "session": true, "storeid": true, "expirationdate": true, "comment": true, "version": true}

// cookieJar notes, in w.cookies, the start of each cookie value inside
// the object or array opening at s[v], the value of a key cookiesKey
// accepts: a map's string members but cookieAttributes, or the string
// "value" member of each object of a list that also has a string
// "name". Nothing deeper is a cookie ({"cookies": {"x": {"a": "…"}}}
// keeps "…"), nor is a number.
func (w *docWalk) cookieJar(v int) {
	s := w.s
	if s[v] == '{' {
		forMembers(s, v, func(key string, at int) {
			if s[at] == '"' && !cookieAttributes[strings.ToLower(strings.ReplaceAll(key, "-", ""))] {
				w.noteCookie(at)
			}
		})
		return
	}
	forElements(s, v, func(e int) {
		if s[e] == '{' {
			if at, _ := cookieObject(s, e); at >= 0 {
				w.noteCookie(at)
			}
		}
	})
}

// cookieObjects notes the "value" of each object of the array opening
// at s[i] that has a string "name" and "value", a "domain" and a "path"
// member: a cookie, under no cookie key (a browser's cookie export).
func (w *docWalk) cookieObjects(i int) {
	s := w.s
	forElements(s, i, func(e int) {
		if s[e] == '{' {
			if at, scoped := cookieObject(s, e); at >= 0 && scoped {
				w.noteCookie(at)
			}
		}
	})
}

// cookieObject returns where the string "value" member of the object
// opening at s[e] starts when it also has a string "name" (any case),
// else -1, and whether it has a "domain" and a "path" member (scoped).
func cookieObject(s string, e int) (value int, scoped bool) {
	named, value, domain, path := false, -1, false, false
	forMembers(s, e, func(key string, at int) {
		switch {
		case strings.EqualFold(key, "domain"):
			domain = true
		case strings.EqualFold(key, "path"):
			path = true
		case s[at] != '"':
		case strings.EqualFold(key, "name"):
			named = true
		case strings.EqualFold(key, "value"):
			value = at
		}
	})
	if !named {
		return -1, domain && path
	}
	return value, domain && path
}

// noteCookie notes the string starting at s[at] as a cookie's value.
func (w *docWalk) noteCookie(at int) {
	if w.cookies == nil {
		w.cookies = map[int]bool{}
	}
	w.cookies[at] = true
}

// cookieValue reports whether v, a string docWalk.cookieJar noted, is
// replaced: a value cookieKept does not keep, holding no blank (a
// cookie-octet is none, RFC 6265 §4.1.1: {"oatmeal": "raisin and
// chocolate"} is a recipe's).
func cookieValue(v string) bool {
	return !cookieKept(v) && !strings.ContainsAny(v, " \t\r\n")
}

// forMembers calls fn with each member's key, decoded, and the index
// where its value starts, for the JSON object opening at s[i] (s is
// valid JSON).
func forMembers(s string, i int, fn func(key string, v int)) {
	for j := skipBlanks(s, i+1); j < len(s) && s[j] == '"'; {
		kend := jsonStringEnd(s, j) + 1
		v := skipBlanks(s, skipBlanks(s, kend)+1) // after the colon
		fn(decodeString(s[j:kend]), v)
		j = nextElement(s, v)
	}
}

// forElements calls fn with the index where each element starts, for
// the JSON array opening at s[i] (s is valid JSON).
func forElements(s string, i int, fn func(e int)) {
	for j := skipBlanks(s, i+1); j < len(s) && s[j] != ']'; j = nextElement(s, j) {
		fn(j)
	}
}

// nextElement returns where the member or element after the value
// starting at s[v] starts, or the index of the closing bracket.
func nextElement(s string, v int) int {
	j := skipBlanks(s, valueEndAt(s, v))
	if j < len(s) && s[j] == ',' {
		j = skipBlanks(s, j+1)
	}
	return j
}

// valueEndAt returns the index after the JSON value starting at s[v]
// (s is valid JSON).
func valueEndAt(s string, v int) int {
	switch s[v] {
	case '"':
		return jsonStringEnd(s, v) + 1
	case '{', '[':
		return containerEnd(s, v)
	}
	j := v
	for j < len(s) && strings.IndexByte(",}] \t\r\n", s[j]) < 0 {
		j++
	}
	return j
}
