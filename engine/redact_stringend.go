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
// When the name is in a double-quoted string that opened earlier on the
// line (log: "password: abcdefgh" level=info), or in an escaped one
// (log: \"password: abcdefgh\" level=info, a JSON string cut short), the
// value ends before the string's closing quote instead, and blanks before
// the quote stay. Before (red57), the words after the string went with
// the value and the closing quote was lost. A value cut shorter than
// minBareValue bytes, or before the end of a group, is no match
// (log: "token: ab" x keeps ab, as log: "token: ab" does). A quote
// with no blank, end or one of ,;)]}& after it is the value's
// (closingQuote). It returns the quote's offset in s, or m[1] when the
// match stays as it is, and the match's new end (-1: no match).
func stringEnd(pattern *regexp.Regexp) func(s string, m []int, qs *quoteScan) (quote, end int) {
	op := pattern.SubexpIndex("op") // the first: form 2's
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
		switch open, escaped := qs.inString(s, m[0]); {
		case escaped:
			quote += escapedClosingQuote(s[from:m[1]])
		case open:
			quote += closingQuote(s[from:m[1]], 0, '"')
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

// quoteScan reads the double quotes of a text's lines, once: the
// matches of one search ask about offsets in increasing order, and each
// asking from its line's start made a raw line of many escaped ones
// (password: abcdefgh\npassword: …) quadratic. The zero value is ready.
type quoteScan struct {
	pos           int // the offset read up to
	open, escaped bool
}

// inString reports whether offset at of s is inside a double-quoted
// string (open) and inside an escaped one in it (escaped: \"…): its line,
// from the last line feed before at, holds an odd number of unescaped
// double quotes, or of escaped ones, before it. An offset before the
// last one asked about reads its line again.
func (q *quoteScan) inString(s string, at int) (open, escaped bool) {
	if at < q.pos {
		*q = quoteScan{pos: strings.LastIndexByte(s[:at], '\n') + 1}
	}
	for ; q.pos < at; q.pos++ {
		switch s[q.pos] {
		case '\n':
			q.open, q.escaped = false, false
		case '\\':
			if q.pos+1 < at && s[q.pos+1] == '"' {
				q.escaped = !q.escaped
			}
			q.pos++ // the escaped byte
		case '"':
			q.open = !q.open
		}
	}
	return q.open, q.escaped
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
// value was kept: the kept match had taken it. -1 when there is none.
func rejectedPart(pattern *regexp.Regexp) func(s string, m []int) int {
	query := queryValue(pattern)
	return func(s string, m []int) int {
		if at := query(m); at >= 0 {
			return at
		}
		return escapedBreakIn(s[m[0]:m[1]], m[0])
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
