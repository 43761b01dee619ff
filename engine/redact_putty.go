package engine

import (
	"regexp"
	"strconv"
	"strings"
)

// puttyRule recognises the private part of a PuTTY key file (.ppk,
// formats 1 to 3, PuTTY manual appendix C.3 "PPK file format"): the
// Private-Lines: N header, the N base64 lines under it (the private key,
// in clear when Encryption is none) and the Private-MAC (Private-Hash in
// format 1) that follows them. The lines become one line RedactionMark,
// the MAC's value RedactionMark; the header lines, the comment and the
// Public-Lines (the public key, as in authorized_keys) stay. Before
// (red67), a .ppk file a tool printed was stored whole.
func puttyRule() Rule {
	return Rule{Name: "putty-private-key", Pattern: puttyPrivate, Triggers: []string{"private-lines"}, rewrite: puttyLines}
}

// puttyPrivate is puttyRule's pattern: Private-Lines: and its count,
// then the base64 lines after it (blanks before and after each allowed:
// an indented paste; and '>' before it, a mail's or Markdown's quote:
// red70, a quoted key file was stored whole), then a Private-MAC or
// Private-Hash line when it comes right after them.
var puttyPrivate = regexp.MustCompile(`(?im)Private-Lines:[ \t]*[0-9]{1,4}[ \t]*\r?$` +
	`(?:\n` + puttyIndent + `[A-Za-z0-9+/]+={0,2}[ \t]*\r?$)+` +
	`(?:\n` + puttyIndent + `Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]+)?`)

// puttyIndent is what comes before a line of a key file: blanks and the
// '>' of a quote, nested or not ("> ", ">> ", "> > ").
const puttyIndent = `[ \t>]*`

// puttyLines is puttyRule's rewrite: of the base64 lines under the
// header, the first N (the count the header gives: a word of prose on
// the next line, base64 in shape, is kept) become one line
// RedactionMark at the first one's indentation, unless the first is a
// word and no MAC follows (puttyWord: prose after the header); a MAC
// right after them loses its value.
func puttyLines(match string) string {
	lines := strings.SplitAfter(match, "\n")
	_, count, _ := strings.Cut(lines[0], ":")
	n, _ := strconv.Atoi(strings.TrimSpace(count))
	body, mac := lines[1:], false
	if last := len(body) - 1; puttyMAC(body[last]) {
		body[last] = puttyMACRedacted(body[last])
		n, mac = min(n, last), true
	}
	if n = min(n, len(body)); n <= 0 || !mac && puttyWord(body[0]) {
		return match
	}
	first, end := body[0], body[n-1]
	var b strings.Builder
	b.WriteString(lines[0])
	b.WriteString(first[:len(first)-len(strings.TrimLeft(first, " \t>"))] + RedactionMark)
	b.WriteString(end[len(strings.TrimRight(end, "\r\n")):])
	for _, l := range body[n:] {
		b.WriteString(l)
	}
	return b.String()
}

// puttyWord reports whether line, one under Private-Lines:, is a word,
// not base64: letters only, in lower case or capitalised (thanks,
// Thanks; not AAAA, which base64 of zeros is). The first line of a
// key's base64, 64 characters (PuTTY's sshpubk.c wraps at 64), is no
// word in practice (63 random characters all lower case: about 1 in
// 10^24); a short last line may be one, so only the first line is
// asked (red70: the one-word lines after Private-Lines: 3 in prose were
// replaced).
func puttyWord(line string) bool {
	w := strings.TrimSpace(strings.TrimLeft(line, " \t>"))
	if w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return false
	}
	return strings.ToLower(w[1:]) == w[1:]
}

// puttyMAC reports whether line is a Private-MAC or Private-Hash line.
func puttyMAC(line string) bool {
	l := strings.ToLower(strings.TrimLeft(line, " \t>"))
	return strings.HasPrefix(l, "private-mac:") || strings.HasPrefix(l, "private-hash:")
}

// puttyMACRedacted is a MAC line (puttyMAC) with its value RedactionMark.
func puttyMACRedacted(line string) string {
	k := strings.IndexByte(line, ':') + 1
	k += len(line[k:]) - len(strings.TrimLeft(line[k:], " \t"))
	return line[:k] + RedactionMark
}
