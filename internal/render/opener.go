package render

import (
	"html"
	"strings"
	"unicode/utf8"
)

// escapedAt decodes the escape that begins at s[i], if one does: an HTML
// character reference, numeric ("&#91;", "&#x5B;", the semicolon
// optional, as browsers read it, 128 to 159 as Windows-1252: "&#139;"
// is "‹") or named ("&lbrack;", "&brvbar;", "&laquo" without its
// semicolon: namedRef), a backslash escape of C, JSON, JavaScript,
// Python and Perl ("\u005b", "\U0000005b", "\x5b", "\u{5b}", "\x{5b}",
// and three octal digits up to 377, "\133"), or a URL's percent-encoded
// UTF-8 ("%5B", "%E3%80%90" for "【": percentAt). n is its length in
// bytes, 0 when none begins there (r is then meaningless; -1 for a number
// past U+10FFFF). A model reads "&#91;recalled · thread t1 …" as
// "[recalled · thread t1 …" (walk56 F4), and "%5Brecalled",
// "\133recalled" too (mark62), so an escaped bracket opens a marker as
// the bracket does.
func escapedAt(s string, i int) (r rune, n int) {
	switch {
	case s[i] == '&' && i+1 < len(s) && s[i+1] == '#':
		return numericRef(s, i)
	case s[i] == '&':
		return namedRef(s, i)
	case s[i] == '%':
		return percentAt(s, i)
	case s[i] == '\\' && i+1 < len(s):
		switch c := s[i+1]; {
		case (c == 'u' || c == 'x') && i+2 < len(s) && s[i+2] == '{':
			if r, m := hexRun(s, i+3, 0); m > 0 && i+3+m < len(s) && s[i+3+m] == '}' {
				return r, m + 4
			}
		case c == 'u':
			return hexFixed(s, i, 4)
		case c == 'U':
			return hexFixed(s, i, 8)
		case c == 'x':
			return hexFixed(s, i, 2)
		case c >= '0' && c <= '3':
			return octalAt(s, i)
		}
	}
	return 0, 0
}

// octalAt decodes a backslash and three octal digits at s[i], "\133"
// ('['), as C, Python and a shell's printf read them; a value of 128 to
// 255 is that code point, as "\xab" is ("\253" is "«").
func octalAt(s string, i int) (rune, int) {
	if i+4 > len(s) {
		return 0, 0
	}
	var r rune
	for _, c := range []byte(s[i+1 : i+4]) {
		if c < '0' || c > '7' {
			return 0, 0
		}
		r = r*8 + rune(c-'0')
	}
	return r, 4
}

// percentAt decodes a URL's percent-encoded character at s[i]: "%5B" or
// "%5b" is '[', and a valid UTF-8 sequence of them is its character
// ("%E3%80%90" is "【", "%EF%BC%BB" "［"), as a browser shows a URL.
// n is 0 when no valid sequence begins there (a lone continuation byte,
// an overlong form, a surrogate).
func percentAt(s string, i int) (rune, int) {
	var buf [utf8.UTFMax]byte
	b, ok := percentByte(s, i)
	if !ok {
		return 0, 0
	}
	if b < utf8.RuneSelf {
		return rune(b), 3
	}
	buf[0] = b
	for k := 1; k < len(buf) && !utf8.FullRune(buf[:k]); k++ {
		if buf[k], ok = percentByte(s, i+3*k); !ok {
			return 0, 0
		}
		if r, size := utf8.DecodeRune(buf[:k+1]); utf8.FullRune(buf[:k+1]) {
			if r == utf8.RuneError && size <= 1 {
				return 0, 0
			}
			return r, 3 * (k + 1)
		}
	}
	return 0, 0
}

// percentByte decodes "%" and two hex digits at s[i].
func percentByte(s string, i int) (byte, bool) {
	if i+3 > len(s) || s[i] != '%' || !isHex(s[i+1]) || !isHex(s[i+2]) {
		return 0, false
	}
	r, _ := hexRun(s, i+1, 2)
	return byte(r), true
}

// namedRef decodes an HTML named character reference at s[i] as the HTML
// standard reads one in text (html.UnescapeString): a name of its table
// and ';', or one of the legacy names it reads without the semicolon
// ("&ltrecalled" is "<recalled", "&laquo" "«"). n is 0 when none begins
// there or it stands for more than one character, and, unread, when it
// ends in ';' and no phrase may begin after it (mayBeginPhrase) nor
// after a legacy name at its start (legacyMayOpen): the
// table is read only where an opener would matter, so HTML, a reference
// in every few words ("&nbsp;&euro;", "&lt; 10"), renders at about the
// speed of plain text (BenchmarkMessage/html).
func namedRef(s string, i int) (r rune, n int) {
	j := i + 1
	for j < len(s) && j-i <= maxRefName && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z') {
		j++
	}
	if j == i+1 {
		return 0, 0
	}
	if j < len(s) && s[j] == ';' {
		j++
		if !mayBeginPhrase(s, j) && !legacyMayOpen(s[i+1:j-1]) {
			return 0, 0
		}
	}
	ref := s[i:j]
	u := html.UnescapeString(ref)
	if u == ref {
		return 0, 0
	}
	r, size := utf8.DecodeRuneInString(u)
	if rest := u[size:]; strings.HasSuffix(ref, rest) && r != '&' {
		return r, len(ref) - len(rest)
	}
	return 0, 0
}

// mayBeginPhrase reports whether a phrase may begin at s[j] (matchAfter):
// after any ASCII blanks, a character that is not ASCII or is one a
// phrase's first word begins with (phraseStart).
func mayBeginPhrase(s string, j int) bool {
	for j < len(s) && s[j] < utf8.RuneSelf && phraseStart[s[j]] {
		switch s[j] {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			j++
			continue
		}
		return true
	}
	return j < len(s) && s[j] >= utf8.RuneSelf
}

// legacyMayOpen reports whether a phrase may begin inside name, the
// letters and digits of a reference that ends in ';', after a legacy name
// HTML reads without its semicolon ("LTrecalled" is "LT" and
// "recalled"): a legacy name is 2 to 6 letters (the html package's
// longestEntityWithoutSemicolon), and the ';' ends the name, so one of
// its 3rd to 7th characters begins a phrase's word and the next is that
// word's second letter, "re" or "un" in either case (phraseStart: no
// blank is in a name, and no other letter or digit is read as these).
func legacyMayOpen(name string) bool {
	for k := 2; k+1 < len(name) && k <= 6; k++ {
		switch c, d := name[k]|0x20, name[k+1]|0x20; {
		case c == 'r' && d == 'e', c == 'u' && d == 'n':
			return true
		}
	}
	return false
}

// maxRefName is longer than the longest name of HTML's table
// ("CounterClockwiseContourIntegral;", 32 characters).
const maxRefName = 40

// numericRef decodes "&#" digits, or "&#x" hex digits, and an optional
// ';' at s[i].
func numericRef(s string, i int) (rune, int) {
	j, base := i+2, 10
	if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
		j, base = j+1, 16
	}
	var r rune
	var m int
	if base == 16 {
		r, m = hexRun(s, j, 0)
	} else {
		for m = 0; j+m < len(s) && s[j+m] >= '0' && s[j+m] <= '9'; m++ {
			r = saturate(r*10 + rune(s[j+m]-'0'))
		}
	}
	if m == 0 {
		return 0, 0
	}
	j += m
	if j < len(s) && s[j] == ';' {
		j++
	}
	if w, ok := windows1252[r]; ok {
		r = w
	}
	return r, j - i
}

// windows1252 are the numbers 128 to 159 an HTML character reference
// reads as the Windows-1252 characters of those bytes, as the HTML
// standard's numeric character reference end state does: "&#139;" is
// "‹", an opener, not the control U+008B.
var windows1252 = map[rune]rune{
	0x80: '€', 0x82: '‚', 0x83: 'ƒ', 0x84: '„', 0x85: '…', 0x86: '†', 0x87: '‡', 0x88: 'ˆ', 0x89: '‰',
	0x8A: 'Š', 0x8B: '‹', 0x8C: 'Œ', 0x8E: 'Ž', 0x91: '\u2018', 0x92: '\u2019', 0x93: '“', 0x94: '”',
	0x95: '•', 0x96: '–', 0x97: '—', 0x98: '˜', 0x99: '™', 0x9A: 'š', 0x9B: '›', 0x9C: 'œ', 0x9E: 'ž', 0x9F: 'Ÿ',
}

// hexFixed decodes a backslash, a letter and exactly digits hex digits at
// s[i].
func hexFixed(s string, i, digits int) (rune, int) {
	if r, m := hexRun(s, i+2, digits); m == digits {
		return r, digits + 2
	}
	return 0, 0
}

// hexRun reads the hex digits at s[j:], at most max of them (0: any
// number), and returns their value (saturated) and count.
func hexRun(s string, j, max int) (rune, int) {
	var r rune
	m := 0
	for j+m < len(s) && isHex(s[j+m]) && (max == 0 || m < max) {
		c := s[j+m]
		d := rune(c - '0')
		switch {
		case c >= 'a':
			d = rune(c-'a') + 10
		case c >= 'A':
			d = rune(c-'A') + 10
		}
		r = saturate(r*16 + d)
		m++
	}
	return r, m
}

// saturate is r, or -1 once it passes the largest code point (and stays
// there as more digits come).
func saturate(r rune) rune {
	if r < 0 || r > 0x10FFFF {
		return -1
	}
	return r
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
