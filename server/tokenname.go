package server

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkTokenName refuses a name the access log and the metrics could not
// tell from another: "-", their mark for a request without a valid token
// (walk41 #4: an operator token named "-" logged its erasures as the
// anonymous 401s are), or a dash that reads as it (walk44 F9); a name with
// surrounding blanks, which a reader of the log takes for the name without
// them (the JSON log keeps them); a name holding a rune the reader does
// not see (unseen); and "operator", the log's name for every request of a
// server without a token file, or a name that reads as it ("Operator",
// "OPERATOR", "оperator" with a Cyrillic о: see readsAlike), unless the
// token may do all the operator may (resources ["*"], erase).
func checkTokenName(i int, tok Token) error {
	name := tok.Name
	switch {
	case name == "-":
		return nameFault{fmt.Errorf("%w: tokens[%d].name: \"-\" is the access log's name for a request without a valid token: give the token another name", ErrInvalidTokens, i)}
	case strings.TrimSpace(name) != name:
		return nameFault{fmt.Errorf("%w: tokens[%d].name: %q has blanks around it, which a reader of the access log does not see (\"ops \" reads as \"ops\"): remove them", ErrInvalidTokens, i, name)}
	}
	if r, ok := unseenRune(name); ok {
		return nameFault{fmt.Errorf("%w: tokens[%d].name: %s holds %U, which a reader of the access log does not see (it reads as %q): give the token a name of visible characters and spaces", ErrInvalidTokens, i, quoteName(name), r, reading(name))}
	}
	if r, _ := utf8.DecodeRuneInString(name); len(name) == utf8.RuneLen(r) && strings.ContainsRune(dashes, r) {
		return nameFault{fmt.Errorf("%w: tokens[%d].name: %q is %U, which reads as \"-\", the access log's name for a request without a valid token: give the token another name", ErrInvalidTokens, i, name, r)}
	}
	if readsAlike(name, Operator.Name) && !(tok.Erase && len(tok.Resources) == 1 && tok.Resources[0] == AllResources) {
		subject := fmt.Sprintf("%q is", name)
		if name != Operator.Name {
			subject = fmt.Sprintf("%s reads as %q,", quoteName(name), Operator.Name)
		}
		return nameFault{fmt.Errorf("%w: tokens[%d].name: %s the access log's name for every request of a server without a token file, which may touch every resource and erase, and this token may not: give the token another name", ErrInvalidTokens, i, subject)}
	}
	return nil
}

// dashes are the runes other than '-' that a reader of the access log
// takes for it when alone: the hyphens and dashes U+2010-U+2015, the minus
// signs U+2212, U+207B, U+208B, U+02D7 and U+2796, the hyphen bullet
// U+2043, and the small and full-width forms U+FE58, U+FE63, U+FF0D.
const dashes = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u207b\u208b\u02d7\u2796\u2043\ufe58\ufe63\uff0d"

// nameFault is a refusal of the name a token file gives a token, which
// quotes the name: ParseTokens adds no "; tokens[i] is the token named …",
// which said it again (walk42 #11).
type nameFault struct{ error }

func (e nameFault) Unwrap() error { return e.error }

// unseenRune returns the first rune of name that a reader does not see or
// cannot tell from a space (see unseen). walk42 #9: a token named
// "-\u200b" logged as the anonymous "-".
func unseenRune(name string) (rune, bool) {
	for _, r := range name {
		if unseen(r) {
			return r, true
		}
	}
	return 0, false
}

// unseen reports whether a reader does not see r or cannot tell it from a
// space: a rune unicode.IsPrint refuses (a control (Cc), a format
// character (Cf: U+200B, U+2060, U+FEFF, U+00AD, the bidi marks and
// overrides), a blank other than the ASCII space (U+00A0, U+3000), a line
// or paragraph separator, a private-use or unassigned code point), a
// variation selector, another default-ignorable code point (U+034F,
// U+115F, U+3164), or U+2800, the braille pattern of no dots, which shows
// as a blank (walk44 F9).
func unseen(r rune) bool {
	return !unicode.IsPrint(r) || r == brailleBlank ||
		unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// brailleBlank is U+2800 BRAILLE PATTERN BLANK, a symbol (So) that
// unicode.IsPrint takes for printable and that shows as a blank.
const brailleBlank = '\u2800'

// reading is name as a reader of the access log sees it: each unseen rune
// that is a blank or a separator (or U+2800) read as a space, every other one as
// nothing ("Ana\u00a0B" reads as "Ana B", "-\u200b" as "-").
func reading(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case !unseen(r):
			return r
		case unicode.IsSpace(r) || unicode.Is(unicode.Z, r) || r == brailleBlank:
			return ' '
		}
		return -1
	}, name)
}

// quoteName is name in double quotes with Go's escapes, and every unseen
// rune as \uXXXX even where %q would print it (U+3164 is a letter to
// strconv.IsPrint), so that the refusal shows what the log hides.
func quoteName(name string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range name {
		q := strconv.QuoteRune(r)
		switch {
		case unseen(r) && strconv.IsPrint(r) && r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08x`, r)
		case unseen(r) && strconv.IsPrint(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\'':
			b.WriteByte('\'')
		default:
			b.WriteString(q[1 : len(q)-1])
		}
	}
	b.WriteByte('"')
	return b.String()
}
