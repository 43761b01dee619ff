package engine

import (
	"regexp"
	"strings"
)

// headerToken is an HTTP field name (RFC 9110 §5.1: a token, §5.6.2).
var headerToken = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// headerField is a value's start in the document and its field's name.
type headerField struct {
	at   int
	name string
}

// headerList notes, in w.pairs, each value of the JSON array opening at
// s[i] when the array is a list of header fields: an even number of
// strings, every other one from the first a field name (headerToken).
// Node's http.IncomingMessage.rawHeaders is one (["Authorization",
// "Bearer …", "Host", "x"]), and a list of pairs ([["X-Api-Key", "…"]]:
// Python's http.client getheaders(), a fetch Headers' entries) is one per
// pair. Each value whose name may name a secret (prefilter.named) is then
// tried after it ("X-Api-Key": "…"), as an object's member is; before,
// the name and its value were apart and "token ghp_…" after
// "Authorization" was stored in clear. Only a name written as a header
// field's is tried (headerStyle): a list of words ("id", "name", "token",
// "created_at"; "Password", "a word you keep") has none, and lost the
// word after a credential word (walk47 F3).
func (w *docWalk) headerList(i int) {
	s := w.s
	var found []headerField
	var name string
	n := 0
	for j := skipBlanks(s, i+1); j < len(s) && s[j] != ']'; n++ {
		if s[j] != '"' {
			return
		}
		end := jsonStringEnd(s, j) + 1
		if n%2 == 0 {
			if name = decodeString(s[j:end]); !headerToken.MatchString(name) {
				return
			}
		} else if headerStyle(name) && w.r.pf.named(marshalString(name)+": ") {
			found = append(found, headerField{j, name})
		}
		if j = skipBlanks(s, end); j < len(s) && s[j] == ',' {
			j = skipBlanks(s, j+1)
		}
	}
	if n%2 != 0 || len(found) == 0 {
		return
	}
	if w.pairs == nil {
		w.pairs = map[int]string{}
	}
	for _, f := range found {
		w.pairs[f.at] = f.name
	}
}

// headerListAt reports whether the '[' at s[i] may open a list of header
// fields (docWalk.headerList): its first element, blanks aside, is a
// string that is a field name as written (no escape, no blank: a list of
// sentences is none, and costs no walk).
func headerListAt(s string, i int) bool {
	j := skipBlanks(s, i+1)
	if j >= len(s) || s[j] != '"' {
		return false
	}
	k := strings.IndexByte(s[j+1:], '"')
	return k >= 0 && headerToken.MatchString(s[j+1:j+1+k])
}

// headerStyle reports whether name is written as an HTTP field that may
// carry a credential: Authorization, Proxy-Authorization, Cookie or
// Set-Cookie (RFC 9110 §11.6.2, §11.7.2; RFC 6265), any case, or a
// hyphenated name (X-Api-Key, X-Auth-Token, Private-Token). A bare word
// ("token", "secret", "password") is a column, a tag or a glossary entry
// far more often than a header's name.
func headerStyle(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return strings.Contains(name, "-")
}
