package engine

import (
	"regexp"
	"strings"
)

// minBareValue is the fewest bytes of a bare assigned value (lineValue's,
// afterName's): a shorter one is taken for a word (DB_PASSWORD=abc stays).
const minBareValue = 4

// stringEnd gives a cut (Rule.cut) for pattern, the assignment rule's
// or prose-secret's: a bare value after a name and a colon (form 2:
// lineValue, lineAfterBreak; proseValue's sentence) runs to the end of its
// line, through blanks and quotes (a passphrase, password: Tr0ub"4dor).
// When the name is in a double- or single-quoted string that opened
// earlier on the line (log: "password: abcdefgh" level=info, log:
// 'password: abcd efgh' level=info; quoteScan tells a quote that opens a
// string from an inch mark or an apostrophe), or in an escaped one
// (log: \"password: abcdefgh\" level=info, a JSON string cut short), the
// value ends before the string's closing quote instead, and blanks before
// the quote stay. Before (red57), the words after the string went with
// the value and the closing quote was lost; before red58, so in a
// single-quoted string. A value cut shorter than
// minBareValue bytes, or before the end of a group, is no match
// (log: "token: ab" x keeps ab, as log: "token: ab" does). A quote
// with no blank, end or one of ,;)]}& after it is the value's
// (closingQuote). After an openssl option that takes a key:value pair
// (-kdfopt secret:X, optionValue) the value is one word, as the shell
// splits it: it ends at a blank or a quote (red71: it ran to the end of
// the line, -pkeyopt salt:… -in a -out b and all). It returns the
// quote's offset in s, or m[1] when the
// match stays as it is, and the match's new end (-1: no match).
func stringEnd(pattern *regexp.Regexp) func(s string, m []int, qs *quoteScan) (quote, end int) {
	op := pattern.SubexpIndex("op") // the first: form 2's
	name := pattern.SubexpIndex("name")
	var quotes []int
	for i, name := range pattern.SubexpNames() {
		if name == "q" {
			quotes = append(quotes, i)
		}
	}
	return func(s string, m []int, qs *quoteScan) (int, int) {
		from := m[2*op+1]
		if from < 0 {
			return m[1], m[1]
		}
		for _, q := range quotes {
			if m[2*q] >= 0 {
				return m[1], m[1] // a quoted value: it ends at its own quote
			}
		}
		quote := from
		switch q, escaped := qs.inString(s, m[0]); {
		case optionValue(s, m[2*name]):
			quote += optionValueEnd(s[from:m[1]])
		case escaped:
			quote += escapedClosingQuote(s[from:m[1]])
		case q != 0:
			quote += closingQuote(s[from:m[1]], 0, q)
			if quote < m[1] && oddQuotes(s[quote+1:m[1]], q) {
				return m[1], m[1] // which quote closes the string is unclear
			}
		default:
			return m[1], m[1]
		}
		if quote == m[1] {
			return m[1], m[1]
		}
		end := from + len(strings.TrimRight(s[from:quote], " \t"))
		for k := 3; k < len(m); k += 2 {
			if m[k] > end {
				return quote, -1 // the cut falls in a group (prose-secret's sentence)
			}
		}
		if end-from < minBareValue {
			return quote, -1
		}
		return quote, end
	}
}

// quoteScan reads the quotes of a text's lines, once: the matches of one
// search ask about offsets in increasing order, and each asking from its
// line's start made a raw line of many escaped ones (password:
// abcdefgh\npassword: …) quadratic. The zero value is ready.
type quoteScan struct {
	pos     int  // the offset read up to
	open    byte // the quote of the string open at pos ('"', '\''), or 0
	escaped bool // inside an escaped string (\"…)
}

// inString reports the quote of the string that offset at of s is in
// (q: '"' or '\”, 0 for none) and whether it is inside an escaped double-
// quoted one (escaped: \"…), reading its line from the last line feed
// before at. A quote opens a string only after no ASCII letter or digit:
// the inch mark of 6'2" and the apostrophe of don't open none (red58: a
// lone " earlier on a line cut a value at a quote of its own). Inside a
// string, the other quote is text, and a single quote before a letter or
// digit (it's) does not close it. An offset before the last one asked
// about reads its line again.
func (q *quoteScan) inString(s string, at int) (open byte, escaped bool) {
	if at < q.pos {
		*q = quoteScan{pos: strings.LastIndexByte(s[:at], '\n') + 1}
	}
	for ; q.pos < at; q.pos++ {
		switch c := s[q.pos]; c {
		case '\n':
			q.open, q.escaped = 0, false
		case '\\':
			if q.pos+1 < at && s[q.pos+1] == '"' {
				q.escaped = !q.escaped
			}
			q.pos++ // the escaped byte
		case '"', '\'':
			q.open = q.quote(s, c)
		}
	}
	return q.open, q.escaped
}

// quote returns the quote state after the quote c at q.pos of s.
func (q *quoteScan) quote(s string, c byte) byte {
	switch {
	case q.open == 0:
		if q.pos > 0 && isAlnum(s[q.pos-1]) {
			return 0 // 6'2", don't
		}
		return c
	case q.open != c:
		return q.open // the other quote is the string's text
	case c == '\'' && q.pos+1 < len(s) && isAlnum(s[q.pos+1]):
		return c // it's
	}
	return 0
}

// oddQuotes reports whether rest, the line after a string's closing
// quote q, holds an odd number of quotes q (unescaped; for a single quote,
// not between two ASCII letters or digits, as in it's): one of them may
// close the string as well (log: 'password: it' s abcd' x, a possessive
// kids' in a single-quoted string), and the value is then taken to the
// end of its line, as before red58. An even number (SQL's 'C' 'C') pairs.
func oddQuotes(rest string, q byte) bool {
	n := 0
	for i := 0; i < len(rest); i++ {
		switch {
		case rest[i] == '\\':
			i++
		case rest[i] != q:
		case q == '\'' && i > 0 && i+1 < len(rest) && isAlnum(rest[i-1]) && isAlnum(rest[i+1]):
		default:
			n++
		}
	}
	return n%2 == 1
}

// escapedClosingQuote is the offset in v of its first escaped double
// quote (\") that ends a string, as closingQuote's: the end, a blank, a
// backslash or one of ,;)]}& follows it; or len(v).
func escapedClosingQuote(v string) int {
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		if i+1 < len(v) && v[i+1] == '"' && (i+2 == len(v) || strings.IndexByte(" \t,;)]}&\\", v[i+2]) >= 0) {
			return i
		}
		i++
	}
	return len(v)
}

// rejectedPart gives the assignment rule's within, for its pattern: the
// part of a rejected match that is searched again. A URL query parameter
// kept for its name (?q=, &filter=) has its value searched (queryValue).
// A match of another form kept by notPlaceholder has the text from its
// first escaped line break searched: a name with no value on its line
// took the next line for its value (credentials:\ntoken: abcd1234), and
// that line may assign a secret of its own. Before (red57), token's
// value was kept: the kept match had taken it. A label kept for the
// sentence after it (labelProse) has the sentence searched: it may
// assign a secret ("**Credentials**: use the password: …"). -1 when
// there is none.
func rejectedPart(pattern *regexp.Regexp) func(s string, m []int) int {
	query := queryValue(pattern)
	return func(s string, m []int) int {
		if at := query(m); at >= 0 {
			return at
		}
		if at := escapedBreakIn(s[m[0]:m[1]], m[0]); at >= 0 {
			return at
		}
		return labelValue(s, m)
	}
}

// escapedBreakIn returns the offset, plus at, of the first line break
// escaped as text (\n, \r) in v; -1 when v holds none.
func escapedBreakIn(v string, at int) int {
	for i := 0; i+1 < len(v); i++ {
		if v[i] == '\\' {
			if v[i+1] == 'n' || v[i+1] == 'r' {
				return at + i
			}
			i++
		}
	}
	return -1
}

// optionOpener is an openssl option whose value is a key:value pair,
// then the key's prefix (hex, as in -kdfopt hexsecret:…), ending a text.
var optionOpener = regexp.MustCompile(`(?:^|[ \t])-(?:kdf|pkey|mac)opt[ \t]+[a-z]*$`)

// optionValue reports whether the credential name starting at s[at] is
// the key of an openssl option's key:value pair (optionOpener):
// openssl kdf -kdfopt secret:X, pkeyutl -pkeyopt hexsecret:X. The
// cli-openssl-key rule replaces X on an openssl command (opensslKey);
// the assignment rule does on any line, X alone. (A search for "opt"
// first: every value of form 2 asks.)
func optionValue(s string, at int) bool {
	if at < 0 {
		return false
	}
	w := s[max(0, at-32):at]
	return strings.Contains(w, "opt") && optionOpener.MatchString(w)
}

// optionValueEnd returns the length of the shell word v starts with: up
// to a blank, a quote or a backslash.
func optionValueEnd(v string) int {
	if i := strings.IndexAny(v, " \t\"'\\"); i >= 0 {
		return i
	}
	return len(v)
}
