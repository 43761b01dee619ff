package engine

import "strings"

// keyedContainer reports whether s holds a JSON key that may name a secret
// (a trigger of a rule, prefilter.named) followed by a list or an object:
// `"password": [` or `"headers": {` with any blanks and line breaks between
// (pretty-printed JSON), or a "value" member in a text holding a rule's
// trigger (a credential a sibling "name" names) or a "domain" key (a
// cookie object), or the word cookie (a cookie key's string), or a list that starts
// like a list of header fields in a text holding a rule's trigger. The text rules see such a
// key's strings apart from it, so Redact walks the document
// (docWalk.under, docWalk.namedBy, docWalk.headerList) even when they
// matched nothing. Keys before a value of another kind cost one byte search each.
func (r *PatternRedactor) keyedContainer(s string) bool {
	if namesValue(s) && (r.pf.named(s) || strings.Contains(s, `"domain"`)) {
		return true // {"name": "DB_PASSWORD", "value": "…"} (docWalk.namedBy), a cookie object (docWalk.cookieObjects)
	}
	if strings.Contains(s, `ookie`) || strings.Contains(s, `OOKIE`) {
		return true // {"cookies": "sid=…"} (docWalk.cookieString)
	}
	headers := false
	for i := 0; i < len(s); i++ {
		j := strings.IndexAny(s[i:], "{[")
		if j < 0 {
			break
		}
		i += j
		if key, ok := keyBefore(s, i); ok && r.pf.named(key+": ") {
			return true
		}
		headers = headers || (s[i] == '[' && headerListAt(s, i))
	}
	return headers && r.pf.named(s) // ["Authorization", "token …"] (docWalk.headerList)
}

// namesValue reports whether s may hold a "value" member (any case) that a
// sibling "name" or "key" names.
func namesValue(s string) bool {
	for i := strings.Index(s, `alue"`); i >= 0; {
		if i >= 2 && s[i-2] == '"' && (s[i-1] == 'v' || s[i-1] == 'V') {
			return true
		}
		j := strings.Index(s[i+1:], `alue"`)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// keyBefore returns the JSON key of `"key" : ` that ends, blanks aside,
// just before index v of s, or false.
func keyBefore(s string, v int) (string, bool) {
	k := blanksBefore(s, v)
	if k < 0 || s[k] != ':' {
		return "", false
	}
	k = blanksBefore(s, k)
	if k < 0 || s[k] != '"' {
		return "", false
	}
	start := strings.LastIndexByte(s[:k], '"')
	if start < 0 {
		return "", false
	}
	return s[start+1 : k], true
}
