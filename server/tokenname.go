package server

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// checkTokenName refuses a name the access log and the metrics could not
// tell from another: "-", their mark for a request without a valid token
// (walk41 #4: an operator token named "-" logged its erasures as the
// anonymous 401s are), and a name with surrounding blanks, which a reader
// of the log takes for the name without them (the JSON log keeps them).
func checkTokenName(i int, name string) error {
	switch {
	case name == "-":
		return nameFault{fmt.Errorf("%w: tokens[%d].name: \"-\" is the access log's name for a request without a valid token: give the token another name", ErrInvalidTokens, i)}
	case strings.TrimSpace(name) != name:
		return nameFault{fmt.Errorf("%w: tokens[%d].name: %q has blanks around it, which a reader of the access log does not see (\"ops \" reads as \"ops\"): remove them", ErrInvalidTokens, i, name)}
	}
	if r, ok := unseenRune(name); ok {
		return nameFault{fmt.Errorf("%w: tokens[%d].name: %s holds %U, which a reader of the access log does not see (it reads as %q): give the token a name of visible characters and spaces", ErrInvalidTokens, i, quoteName(name), r, reading(name))}
	}
	return nil
}

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
// variation selector, or another default-ignorable code point (U+034F,
// U+115F, U+3164).
func unseen(r rune) bool {
	return !unicode.IsPrint(r) || unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// reading is name as a reader of the access log sees it: each unseen rune
// that is a blank or a separator read as a space, every other one as
// nothing ("Ana\u00a0B" reads as "Ana B", "-\u200b" as "-").
func reading(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case !unseen(r):
			return r
		case unicode.IsSpace(r) || unicode.Is(unicode.Z, r):
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
