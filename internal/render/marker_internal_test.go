package render

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// regexpShape is the regexp that quoted marker-shaped text up to render-v7
// (0e504ee), with the sets and phrases of later renderings: one
// alternative for each phrase (phraseDefs), in order, each an opener
// group (brackets, their escapes, and for a phrase with bars the bars
// and theirs, then the blank characters before the first word: where
// QuotedPrefix goes), the phrase's other pieces, and a last group, where
// quoting goes on: the character an alone piece allowed, or empty.
// quote must agree with it on every text.
var regexpShape = sync.OnceValue(func() *regexp.Regexp {
	ref := live()
	classes := ref.letters
	brackets, bars := ref.markerBracketClass(), ref.markerBarClass()
	// A word spelled apart: no stop followed by a space, invisible
	// characters and marks between them aside (but for a spaced one).
	sp, st, inv, dash := ref.spaceClass(), ref.stopClass(), between, ref.dashClass()
	brokenGap := `(?:[` + sp + dash + inv + `]|[` + st + `][` + st + inv + `]*[` + dash + `])*(?:[` + st + `][` + st + inv + `]*)?`
	var alts []string
	for _, d := range phraseDefs(ref.sets()) {
		open := `[` + brackets + `]|` + escapesOf(brackets)
		if d.bars {
			open = `[` + brackets + bars + `]|` + escapesOf(brackets) + `|` + escapesOf(bars)
		}
		var b strings.Builder
		b.WriteString(`((?:` + open + `)[` + classOf(d.pieces[0].star) + `]*)`)
		last, star := `()`, classOf(d.pieces[0].star)
		for _, pc := range d.pieces[1:] {
			switch {
			case pc.word != "":
				gap := `[` + between + `]*`
				if pc.broken {
					gap = brokenGap
				}
				if pc.spaced { // no stop rule
					gap = `[` + sp + dash + inv + st + `]*`
				}
				for i, l := range pc.word {
					if i > 0 {
						b.WriteString(gap)
					}
					b.WriteString(`[` + classes[l] + `]`)
				}
			case pc.one != nil:
				b.WriteString(`[` + classOf(pc.one) + `]`)
			case pc.alone != nil:
				// Nor what the star before it reads: the star reads all
				// it can.
				last = `((?:[^` + classOf(pc.alone) + star + `]|$))`
			default:
				b.WriteString(`[` + classOf(pc.star) + `]*`)
			}
			star = classOf(pc.star)
		}
		b.WriteString(last)
		alts = append(alts, b.String())
	}
	return regexp.MustCompile(strings.Join(alts, "|"))
})

// classOf is the members of a regexp character class matching the set
// rs: its ranges, \x{lo}-\x{hi}.
func classOf(rs runeSet) string {
	var b strings.Builder
	for i := 0; i < len(rs); i += 2 {
		fmt.Fprintf(&b, `\x{%X}-\x{%X}`, rs[i], rs[i+1])
	}
	return b.String()
}

// escapesOf is the regexp alternatives matching the escapes escapedAt
// reads of each character of a class: HTML numeric references, decimal
// and hexadecimal, their semicolon optional (and the Windows-1252 numbers
// of those it has one), the named ones, the backslash escapes (octal
// too) and the percent-encoded UTF-8.
func escapesOf(class string) string {
	set := classSet(class)
	var alts []string
	for i := 0; i < len(set); i += 2 {
		for r := set[i]; r <= set[i+1]; r++ {
			alts = append(alts, fmt.Sprintf(`&#0*%d;?|&#[xX]0*(?i:%x);?|\\u\{0*(?i:%x)\}|\\U(?i:%08x)`, r, r, r, r))
			if r <= 0xFFFF {
				alts = append(alts, fmt.Sprintf(`\\u(?i:%04x)`, r))
			}
			if r <= 0xFF {
				alts = append(alts, fmt.Sprintf(`\\x(?i:%02x)|\\%03o`, r, r))
			}
			alts = append(alts, fmt.Sprintf(`\\x\{0*(?i:%x)\}`, r))
			var pct strings.Builder
			for _, c := range []byte(string(r)) {
				fmt.Fprintf(&pct, `%%(?i:%02x)`, c)
			}
			alts = append(alts, pct.String())
			for n, w := range windows1252 {
				if w == r {
					alts = append(alts, fmt.Sprintf(`&#0*%d;?|&#[xX]0*(?i:%x);?`, n, n))
				}
			}
		}
	}
	for _, name := range htmlOpenerNames {
		if u := html.UnescapeString("&" + name); set.has([]rune(u)[0]) {
			alts = append(alts, `&`+name)
		}
	}
	return strings.Join(alts, "|")
}

// htmlOpenerNames are the names of HTML's character references (Go's
// html package's table) that stand for a bracket or bar of
// markerBracketClass or markerBarClass, those read without a semicolon
// last.
var htmlOpenerNames = []string{
	"LT;", "Lang;", "LeftAngleBracket;", "LeftDoubleBracket;", "NotLess;", "NotVerticalBar;", "VerticalBar;",
	"VerticalLine;", "VerticalSeparator;", "boxv;", "brvbar;", "lang;", "langle;", "laquo;", "lbbrk;", "lbrace;",
	"lbrack;", "lbrke;", "lbrksld;", "lbrkslu;", "lcub;", "loang;", "lobrk;", "lopar;", "lpar;", "lsaquo;", "lsqb;",
	"lt;", "mid;", "nless;", "nlt;", "nmid;", "nshortmid;", "nsmid;", "shortmid;", "smid;", "verbar;", "vert;",
	"LT", "brvbar", "laquo", "lt",
}

// regexpQuote is quote as it was: the regexp's leftmost match, with
// QuotedPrefix after its first group, then the same from its last group
// on.
func regexpQuote(s string) string {
	var b strings.Builder
	done, from := 0, 0
	for from < len(s) {
		m := regexpShape().FindStringSubmatchIndex(s[from:])
		if m == nil {
			break
		}
		for g := 1; 2*g < len(m); g += 2 {
			if m[2*g] >= 0 {
				b.WriteString(s[done:from+m[2*g+1]] + QuotedPrefix)
				done = from + m[2*g+1]
				from += m[2*g+2]
				break
			}
		}
	}
	return b.String() + s[done:]
}

// spell writes each character of s read as several (spelledForms: "㎈")
// as those ("cal"), for the regexp, which reads one character at a time:
// quote(s), spelled, is regexpQuote of s spelled (lock53).
func spell(s string) string {
	sp := live().spelled
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := nextRune(s, i)
		if f, ok := sp[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// quoteAgrees reports whether quote(s) is the regexp's quoting of s, both
// spelled, and returns both.
func quoteAgrees(s string) (got, want string, ok bool) {
	got, want = spell(quote(s)), regexpQuote(spell(s))
	return got, want, got == want
}

// TestMarkerSetsDisjoint: the characters a phrase skips before its next
// piece (a star's, a word's breaks) are never that piece's first
// character, so quote, which reads the star (or break) while it can, finds
// what the regexp finds. A phrase's tail and the blank after it share the
// invisible characters and marks, which either may read. An alone piece
// reads no character: the star before it reads all it can, in quote as
// in the regexp, which prefers the longer star.
func TestMarkerSetsDisjoint(t *testing.T) {
	m := markerShapes()
	overlap := func(a, b runeSet) (rune, bool) {
		for i := 0; i < len(a); i += 2 {
			for r := a[i]; r <= a[i+1]; r++ {
				if b.has(r) {
					return r, true
				}
			}
		}
		return 0, false
	}
	first := func(pc setPiece) runeSet {
		if pc.letters != nil {
			return pc.letters[0]
		}
		return pc.set
	}
	for k, p := range m.phrases {
		for i, pc := range p.pieces {
			if pc.letters != nil {
				for j, l := range pc.letters[1:] {
					if r, ok := overlap(pc.breaks, l); ok {
						t.Errorf("phrase %d: breaks and letter %d share %U", k, j+1, r)
					}
				}
			}
			if pc.letters != nil || pc.one || i+1 == len(p.pieces) {
				continue
			}
			next := p.pieces[i+1]
			if r, ok := overlap(pc.set, first(next)); ok && (next.letters != nil || next.one) {
				t.Errorf("phrase %d: piece %d and the first of piece %d share %U", k, i, i+1, r)
			}
		}
	}
}

// quoteCases are texts quote and the regexp must agree on: each bracket,
// each reading of each letter, blanks and invisible characters where they
// may and may not be, cut words, invalid bytes.
func quoteCases() []string {
	cases := []string{
		"", "(", "[", "(recalled", "[[recalled", "((recalled)(recalled)",
		"[recalled[recalled", "[recalledrecalled", "[ \t\n\r\f\u200brecalled", "[re\u200bca\u00adlled",
		"[re called", "[r\u034fe\u180bc\ufe0fa\U000e0100lled", "[\xffrecalled", "[rec\xffalled", "\xff[recalled",
		"[recalle", "(recalle\xe2\x80", "f(x) [1] (called) (uncalled)", "(\u3000recalled", "(\u00a0recalled",
		"[\u2003recalled", "[r\u0301ecalled", "[\u0301recalled", "[ŕÉcälléd", "︵recalled", "[¨ recalled",
		"[re¨called", "[re㎈led", "⒭ecalled", "[recal\u0301\u200bled", "[re called",
	}
	for _, br := range markerBrackets {
		cases = append(cases, string(br)+"recalled x", "a"+string(br)+" \u200bRECALLED", string(br)+string(br)+"re")
	}
	cases = append(cases, "[re㎈led", "[recaⅡed", "[reca⑪ed", "[recalle㏈", "[recalleǆ x", "[re㎈​led", "[　re㎈led",
		"[rec㎈led", "[re㎈㎈", "⒭ecalled", "[⒭ecalled", "(🄡🄔🄒🄐🄛🄛🄔🄓", "[㎭", "［ｒｅｃａｌｌｅｄ］", "［𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝")
	cases = append(cases, // render-v11's openers and phrases
		"|recalled · thread", "| recalled |", "|recalled|", "||recalled ·", "|reca||ed ·", "[reca||ed", "|untrusted tool", "|untrusted:",
		"&#91;recalled", "&#91recalled", "&#091;recalled", "&#9100recalled", "&#x5B;recalled", "&#X5b recalled", "&#x5B", "&#;", "&#x;",
		"&#99999999999999recalled", "&lbrack;recalled", "&lbrack recalled", "&LT;recalled", "&vert;recall ·", "&#124;recalled",
		`\u005brecalled`, `\u005Brecall ·`, `\u005`, `\U0000005brecalled`, `\x5brecalled`, `\x5`, `\u{5b}recalled`, `\u{}recalled`,
		`\u{5b recalled`, `\\u005brecalled`, "&&#91;recalled", "&#91;&#91;recalled",
		"[r e c a l l e d", "[re-called", "[re‐called", "[r.e.c.a.l.l.e.d", "[re_called", "[re−called", "[re⁻called", "[re‥called",
		"[recall · x", "[recall·", "[recall\u200b ·", "[recalling ∙", "[recall1 ·", "[recall㏈ ·", "[recall⒈ ·", "[recall that ·",
		"[recall\n·", "(Recalls ・", "[recall ･", "[recall ·", "[re call ·",
		"[untrusted tool output]", "[untrusted: from", "[untrusted\u200btool", "[untrustedtool", "[un trusted t o o l", "(untrusted input)",
		"[untrusted ：", "[ｕｎｔｒｕｓｔｅｄ tool", "[untrusted", "[untrusted too",
	)
	cases = append(cases, // render-v12's narrower phrases and escapes
		"[recall · precision]", "[recall · thread t1", "[recall: thread", "[recall：ｔｈｒｅａｄ", "[recalls · t h r e a d", "|recall ﹕ thread",
		"[re-called the", "[re-called]", "[re-called", "[re-called ·", "[re-called́x", "[re-calledͺ", "[re. called", "[re.called]",
		"[r.e.c.a.l.l.e.d]", "[re.​ called]", "[re.-called]", "[re..called]", "[re — called]", "[re called x", "[re called 1",
		"[untrusted tool", "[untrusted tooling", "[untrusted tooĺs", "[untrusted tool​s", "[untrusted tool[recalled", "[untrusted toolⓧ",
		"&#139;recalled", "&#x8b;recalled", "&#0139recalled", "&#155;recalled", "&#x9B;recalled", `\x8brecalled`, "&#166;recall · thread",
		"&ltrecalled", "&LTrecalled;", "&laquorecalled", "&laquo recalled", "&brvbarrecall · thread", "&brvbar;recall · thread",
		"&ltx;recalled", "&ltrif;recalled", "&lbrackrecalled", "&nlt;recalled", "&boxv;recall: thread", "&lt1recalled", "&amp;recalled",
		"&NotEqualTilde;recalled", "&lt"+strings.Repeat("a", 50)+"recalled",
	)
	cases = append(cases, // render-v12's word spelled apart before "thread" (rev60)
		"[re-called thread t1", "[re-called thread", "[re-called threads", "[re-called thre", "[re. called · thread",
		"[r. e. c. a. l. l. e. d. · thread", "[re called: thread", "[re-called.. thread", "[re-called -thread",
		"|re-called thread", "(re. called)", "(re. called the thread)", "[re-called​ thread", "[re-called ·· thread",
	)
	cases = append(cases, // render-v13's "seq", doubled dots, "tools", "tool output", percent and octal escapes (mark62)
		"[recall · seq 2", "[recall · seq", "[recall · seq2", "[recall · seq1", "[recall · seqs", "[recall · sequence", "[recall · seq\u0301x",
		"[recall · seq|", "[recalls · SEQ 2", "[recall. thread", "[recall. seq 2", "[recalls.· thread", "[recall .. seq", "[recall. then", "[recall.thread",
		"(recall.seq)", "[recall. . thread", "[recall.\u200b thread", "[recall.\u00a0seq 2", "|recall. · thread", "[recall. ·thread", "[re-call. seq 2", "[recall ·· thread", "[recall · · thread", "[recall ·\u200b· thread", "[recall :: thread",
		"[recall ·· seq 2", "|recall · seq 2", "[re-called · seq 2", "[re. called seq", "[re-called seqx", "[re called ·· seq",
		"[untrusted tools", "[untrusted tools]", "[untrusted toolss", "[untrusted tool\u200boutput", "[untrusted tooloutput",
		"[untrusted tool\u00a0output", "[untrusted toolbox", "[untrusted tool outpu", "[untrusted tool o u t p u t", "|untrusted tools ·",
		"[untrusted ｔｏｏｌｏｕｔｐｕｔ", "[untrusted tool\u0301output",
		"%5Brecalled", "%5brecalled", "%5B", "%5", "%5Grecalled", "%28recalled", "%7Crecall · thread", "%E3%80%90recalled",
		"%EF%BC%BBrecalled", "%E3%80recalled", "%E3%80%5Brecalled", "%C0%9Brecalled", "%C2%ABrecalled", "%ABrecalled",
		"%F0%9F%98%5Brecalled", "%ED%A0%80recalled", "%%5Brecalled", "%25%5Brecalled",
		`\133recalled`, `\050recalled`, `\074recalled`, `\174recall · thread`, `\253recalled`, `\13recalled`, `\1333recalled`,
		`\400recalled`, `\\133recalled`, `\x{5b}recalled`, `\x{}recalled`, `\x{5brecalled`, `\x{0000005B}recalled`,
		"&nbsp;recalled", "&lt; recalled", "&lt;;recalled", "&LTrecalled;", "&lturecalled;", "&laquorecalled;", "&nbsp;&lt;recalled",
		"&mdash; see", "&brvbarrecall · thread;", "&LTReCaLLed;", "&ltUNtrusted tool;", "&lt2recalled;", "&ldquo;recalled", "&eurorecalled;",
	)
	for r, f := range live().spelled { // each in place of the letters it may read as
		for k := range MarkerWord {
			cases = append(cases, "["+MarkerWord[:k]+string(r)+MarkerWord[min(k+len([]rune(f)), len(MarkerWord)):])
		}
	}
	m := markerShapes()
	for k, l := range m.phrases[0].pieces[1].letters {
		for i := 0; i < len(l); i += 2 {
			for _, r := range []rune{l[i], l[i+1]} {
				word := []rune(MarkerWord)
				word[k] = r
				cases = append(cases, "("+string(word)+")", "["+string(word[:k+1]))
			}
		}
	}
	return cases
}

// TestQuoteAgreesWithRegexp: quote gives what the regexp quoting gave.
func TestQuoteAgreesWithRegexp(t *testing.T) {
	for _, s := range quoteCases() {
		if got, want, ok := quoteAgrees(s); !ok {
			t.Errorf("quote(%q), spelled, = %q, the regexp gave %q", s, got, want)
		}
	}
}

// FuzzQuote: quote and the regexp quoting agree on any text.
//
//	go test ./internal/render -run '^$' -fuzz FuzzQuote -fuzztime 1m
func FuzzQuote(f *testing.F) {
	for _, s := range quoteCases() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want, ok := quoteAgrees(s); !ok {
			t.Fatalf("quote(%q), spelled, = %q, the regexp gave %q (valid UTF-8: %v)", s, got, want, utf8.ValidString(s))
		}
		got := quote(s)
		if readsAsMarker(s) != (got != s) || readsAsMarker(got) {
			t.Fatalf("quote(%q) = %q; normalised, the text reads %q and the result %q", s, got, normalised(s), normalised(got))
		}
	})
}

// normalised is s as a reader takes it, the reference of the normalisation
// markerShape stands for: an escape of an opener (escapeRE) is the opener;
// each space is a space, invisible characters and combining marks are left
// out, and each other character is its baseForm (if it has one and is not
// a confusable itself), or each of its spelledForm's ("㎈" is "cal"),
// then what it reads as (readAs). An invalid byte is U+FFFD.
func normalised(s string) string {
	s = escapeRE.ReplaceAllStringFunc(s, func(e string) string {
		r, rest := decodeEscape(e)
		switch {
		case strings.ContainsRune(markerBrackets, baseOf(r)):
			return "[" + rest
		case strings.ContainsRune(markerBars, baseOf(r)):
			return "¦" + rest // a bar, never the letter l
		}
		return e
	})
	inv := classSet(invisible)
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || unicode.Is(unicode.Z, r):
			b.WriteByte(' ')
			continue
		case unicode.Is(unicode.M, r) || inv.has(r):
			continue
		}
		if f, ok := live().spelled[r]; ok {
			b.WriteString(normalised(f))
			continue
		}
		if base, ok := baseForm(r); ok && readAs(r) == r {
			r = base
		}
		b.WriteRune(readAs(r))
	}
	return b.String()
}

// escapeRE matches the escapes escapedAt reads, whatever they stand for,
// a named reference with the letters and digits after it (up to 40), a
// percent-encoded one as long as the UTF-8 sequence its first byte
// begins.
var escapeRE = regexp.MustCompile(`&#[xX][0-9a-fA-F]+;?|&#[0-9]+;?|&[A-Za-z0-9]{1,40};?|\\[ux]\{[0-9a-fA-F]+\}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2}|\\[0-3][0-7]{2}|` +
	`%[0-7][0-9a-fA-F]|%[c-dC-D][0-9a-fA-F]` + pctCont + `|%[eE][0-9a-fA-F]` + pctCont + pctCont + `|%[fF][0-7]` + pctCont + pctCont + pctCont)

// pctCont is a percent-encoded UTF-8 continuation byte.
const pctCont = `%[89abAB][0-9a-fA-F]`

// decodeEscape is the character an escapeRE match stands for and the
// rest of the match after it: named references as the html package reads
// them (a legacy name without its semicolon followed by the rest),
// numbers as written (-1 past U+10FFFF, the Windows-1252 ones as HTML
// reads them).
func decodeEscape(e string) (rune, string) {
	if !strings.HasPrefix(e, "&#") && strings.HasPrefix(e, "&") {
		u := html.UnescapeString(e)
		r, size := utf8.DecodeRuneInString(u)
		if u != e && strings.HasSuffix(e, u[size:]) {
			return r, u[size:]
		}
		return -1, ""
	}
	if strings.HasPrefix(e, "%") {
		b := make([]byte, 0, 4)
		for k := 0; k+3 <= len(e); k += 3 {
			n, _ := strconv.ParseUint(e[k+1:k+3], 16, 8)
			b = append(b, byte(n))
		}
		if r, size := utf8.DecodeRune(b); size == len(b) && (r != utf8.RuneError || size > 1) {
			return r, ""
		}
		return -1, ""
	}
	if len(e) == 4 && e[0] == '\\' && e[1] >= '0' && e[1] <= '3' {
		n, _ := strconv.ParseUint(e[1:], 8, 32)
		return rune(n), ""
	}
	digits, base := strings.TrimRight(strings.TrimLeft(e, "&#\\uUxX{"), ";}"), 16
	if strings.HasPrefix(e, "&#") && !strings.ContainsAny(e[:3], "xX") {
		base = 10
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil || n > unicode.MaxRune {
		return -1, ""
	}
	if w, ok := windows1252[rune(n)]; ok && strings.HasPrefix(e, "&#") {
		return w, ""
	}
	return rune(n), ""
}

// baseOf is r's baseForm, or r.
func baseOf(r rune) rune {
	if b, ok := baseForm(r); ok {
		return b
	}
	return r
}

// readAs is what r is read as: the letter of a phrase's word ('l' for
// 'I'), '[' for an opening bracket, '|' for the bar that reads as 'l'
// too and '¦' for the other bars, '·' for a marker dot, ':' for a colon,
// '.' for a stop, '-' for a break that is no space, stop or invisible
// character (a dash, '_'), or r.
func readAs(r rune) rune {
	switch {
	case r == '|':
		return '|'
	case strings.ContainsRune(markerBrackets, r):
		return '['
	case strings.ContainsRune(markerBars, r):
		return '¦'
	case strings.ContainsRune(markerDots, r):
		return '·'
	case strings.ContainsRune(markerColons, r):
		return ':'
	case strings.ContainsRune(markerStops, r):
		return '.'
	case unicode.Is(unicode.Pd, r) || strings.ContainsRune("\u2212_", r):
		return '-'
	}
	for _, l := range phraseLetters {
		if strings.ContainsRune(letterReads(l), r) {
			return l
		}
	}
	return r
}

// normalisedMarker matches the phrases in normalised text: a bracket,
// spaces and "recalled"; a bracket, spaces, "recalled" spelled apart
// and spaces, then no letter or digit; a bracket or a bar, spaces,
// "recall", letters, spaces, a dot, a colon or a stop and a space,
// spaces, dots, colons and stops, and "thread" or "seq" with no letter
// after it; "untrusted", spaces and
// "tool" or "tools", then no letter or digit, or "untrusted", spaces,
// "tool", spaces and "output"; a bracket or a bar, spaces, "recalled"
// spelled apart (a stop followed by a space too), spaces, stops, dots or
// colons and "thread" or "seq" with no letter after it. Between the
// letters of a word spelled apart, spaces and breaks, but no stop
// followed by a space; '|' reads as 'l' too.
var normalisedMarker = regexp.MustCompile(`\[ *` + normalWord(MarkerWord, ``) +
	`|\[ *` + normalWord(MarkerWord, normalGap) + ` *(?:[^\pL\pN| ]|$)` +
	`|[\[|¦] *` + normalWord(MarkerWord, `[ .\-]*`) + `[ .·:]*` + normalNext +
	`|[\[|¦] *` + normalWord(stemWord, normalGap) + `[\pL|]* *(?:[·:]|\. )[ ·:.]*` + normalNext +
	`|[\[|¦] *` + normalWord(untrustedWord, normalGap) + ` *(?:` + normalWord(toolWord, normalGap) + `(?:` + normalGap + `s)?(?:[^\pL\pN|]|$)` +
	`|` + normalWord(toolWord, normalGap) + ` *` + normalWord(outputWord, normalGap) + `)`)

// normalNext is what follows the separator in normalised text: "thread",
// or "seq" and no letter.
var normalNext = `(?:` + normalWord(threadWord, normalGap) + `|` + normalWord(seqWord, normalGap) + `(?:[^\pL|]|$))`

// normalGap is what may come between the letters of a word spelled apart
// in normalised text: spaces and breaks, a stop never followed by a space.
const normalGap = `(?:[ \-]|\.+-)*\.*`

// normalWord is the regexp of word in normalised text, gap between its
// letters.
func normalWord(word, gap string) string {
	var parts []string
	for _, l := range word {
		if l == 'l' {
			parts = append(parts, `[l|]`)
		} else {
			parts = append(parts, string(l))
		}
	}
	return strings.Join(parts, gap)
}

// readsAsMarker reports whether s, normalised, holds a phrase.
func readsAsMarker(s string) bool { return normalisedMarker.MatchString(normalised(s)) }

// TestQuoteNormalised: quote quotes exactly the texts that, normalised,
// hold a marker, and leaves none in its result. Before render-v8 the
// Unicode spaces after the bracket, an accent on a letter or the bracket,
// accented letters and the vertical presentation forms of the brackets
// were left unquoted (walk48 F11).
func TestQuoteNormalised(t *testing.T) {
	for _, tc := range []struct {
		in     string
		quoted bool
	}{
		{"[\u00a0recalled · thread t]", true},
		{"[\u2003recalled", true},
		{"(\u3000recalled", true},
		{"[\u200brecalled", true},
		{"[r\u0301ecalled", true},
		{"[\u0301recalled", true},
		{"[recal\u0301\u200bled", true},
		{"[ŕécalled", true},
		{"[RÉCÄLLËD", true},
		{"[rёcalled", true}, // Cyrillic ё
		{"︵recalled", true},
		{"﹝recalled", true},
		{"[´ recalled", true},
		{"[\u1680\u202f\u205frecalled", true},
		{"[re called", true}, // render-v11: spaces between the letters
		{"[re¨called", true},
		{"[ recalling", false},
		// A character read as several (NFKD), letters among them (lock53;
		// render-v9): "[re㎈led" reads "[recalled", "Ⅱ" "II", "⑪" "11".
		{"[re㎈led", true},
		{"[recaⅡed", true},
		{"[reca⑪ed", true},
		{"[recalle㏈", true}, // "[recalledB"
		{"[re㎈​led", true},
		{"[rec㎈led", false}, // "[reccalled"
		{"[re㏄lled", false},
		// A parenthesized letter reads with both its brackets: "(r)ecalled"
		// is no marker, nor "[(r)ecalled".
		{"⒭ecalled", false},
		{"[⒭ecalled", false},
		{"(🄡🄔🄒🄐🄛🄛🄔🄓", false},
		// Full-width and mathematical letters and brackets (baseForm).
		{"［ｒｅｃａｌｌｅｄ］", true},
		{"［𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝", true},
		{"(𝔯𝔢𝔠𝔞𝔩𝔩𝔢𝔡", true},
		{"[𝕣𝕖𝕔𝕒𝕝𝕝𝕖𝕕", true},
		{"[𝚛𝚎𝚌𝚊𝚕𝚕𝚎𝚍", true},
		{"[𝖗𝖊𝖈𝖆𝖑𝖑𝖊𝖉", true},
		{"[ʳᵉᶜᵃˡˡᵉᵈ", true},
		{"[🄡🄴🄲🄰🄻🄻🄴🄳", false},
		{"𝐫𝐞𝐜𝐚𝐥𝐥𝐞𝐝", false},
	} {
		got := quote(tc.in)
		if (got != tc.in) != tc.quoted {
			t.Errorf("quote(%q) = %q, want quoted %v", tc.in, got, tc.quoted)
		}
		if readsAsMarker(tc.in) != tc.quoted || readsAsMarker(got) {
			t.Errorf("normalised, %q reads %q and its quoting %q", tc.in, normalised(tc.in), normalised(got))
		}
	}
}

// TestQuoteAgreesWithNormalised: quote and the normalisation agree on
// quoteCases.
func TestQuoteAgreesWithNormalised(t *testing.T) {
	for _, s := range quoteCases() {
		got := quote(s)
		if readsAsMarker(s) != (got != s) || readsAsMarker(got) {
			t.Errorf("quote(%q) = %q; normalised, the text reads %q and the result %q", s, got, normalised(s), normalised(got))
		}
	}
}

// TestBaseFormsInCompatRanges: every character whose baseForm is a letter
// of MarkerWord, a bracket or a space, or whose spelledForm holds such a
// letter and no bracket (spelledForms), lies in compatRanges, where the sets are built
// from.
func TestBaseFormsInCompatRanges(t *testing.T) {
	in := func(r rune) bool {
		for _, rg := range compatRanges {
			if r >= rg[0] && r <= rg[1] {
				return true
			}
		}
		return false
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if in(r) {
			continue
		}
		letter, bracket := false, false
		for _, c := range spelledForm(r) {
			letter = letter || strings.ContainsRune(MarkerWord, readAs(c))
			bracket = bracket || readAs(c) == '['
		}
		if letter && !bracket {
			t.Errorf("%U %q reads as %q and lies outside compatRanges", r, r, string(spelledForm(r)))
		}
		base, ok := baseForm(r)
		if !ok || (readAs(base) == base && base != ' ') {
			continue
		}
		t.Errorf("%U %q reads as %q and lies outside compatRanges", r, r, base)
	}
}

// TestPhraseStart: phraseStart, quote's shortcut, holds every ASCII
// character a phrase may begin with: each phrase's first pieces, a blank
// star and a word's first letter.
func TestPhraseStart(t *testing.T) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		can := false
		for _, p := range markerShapes().phrases {
			can = can || p.pieces[0].set.has(c) || p.pieces[1].letters[0].has(c)
		}
		if can && !phraseStart[c] {
			t.Errorf("%q may begin a phrase and is not in phraseStart", c)
		}
	}
}
