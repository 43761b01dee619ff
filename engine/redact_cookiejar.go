package engine

import "strings"

// A JSON document's cookies are under a key ending in "cookies" (any
// case): a map of names to values ({"cookies": {"sessionid": "…"}}, as
// the text's cookie-map rule reads one) or a list of cookie objects,
// each with a "name" and a "value" member in either order (an HAR
// request's or response's "cookies", Playwright's storageState, a
// browser's cookie export under "cookies"). redactDocument redacts a
// document string by string, so a value there was seen without its
// name and stored in clear (red71); docWalk.cookieJar notes them.

// cookiesKey reports whether key, a JSON object's key, ends in "cookies",
// any case (cookies, requestCookies, session.cookies).
func cookiesKey(key string) bool {
	const suffix = "cookies"
	return len(key) >= len(suffix) && strings.EqualFold(key[len(key)-len(suffix):], suffix)
}

// cookieJar notes, in w.cookies, the start of each cookie value inside
// the object or array opening at s[v], the value of a key cookiesKey
// accepts: a map's string members, or the string "value" member of each
// object of a list that also has a string "name". Nothing deeper is a
// cookie ({"cookies": {"x": {"a": "…"}}} keeps "…"), nor is a number.
func (w *docWalk) cookieJar(v int) {
	note := func(at int) {
		if w.cookies == nil {
			w.cookies = map[int]bool{}
		}
		w.cookies[at] = true
	}
	s := w.s
	if s[v] == '{' {
		forMembers(s, v, func(_ string, at int) {
			if s[at] == '"' {
				note(at)
			}
		})
		return
	}
	forElements(s, v, func(e int) {
		if s[e] != '{' {
			return
		}
		named, value := false, -1
		forMembers(s, e, func(key string, at int) {
			switch {
			case s[at] != '"':
			case strings.EqualFold(key, "name"):
				named = true
			case strings.EqualFold(key, "value"):
				value = at
			}
		})
		if named && value >= 0 {
			note(value)
		}
	})
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
