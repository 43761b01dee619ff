package server

import (
	"fmt"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// checkNamesDistinct refuses a token file two of whose token names (a
// name given, or the "token-<index>" of a token without one) a reader of
// the access log takes for one another: names equal under NFKC and case
// folding ("Ａlice", full-width, and "Alice"; "alice" and "Alice"), or of
// one UTS #39 confusable skeleton ("Аlice", with a Cyrillic А, and
// "Alice"; "I" and "l"). Such tokens were both accepted and the log could
// not tell who made a request. The error names both entries by index and
// quotes both names (ParseTokens has refused a name that is a secret
// already) with the first rune where they differ.
func checkNamesDistinct(toks []Token) error {
	var seen [2]map[string]int
	for k := range seen {
		seen[k] = map[string]int{}
	}
	names := make([]string, len(toks))
	for i, tok := range toks {
		names[i] = tok.Name
		if names[i] == "" {
			names[i] = fmt.Sprintf("token-%d", i)
		}
		for k, key := range nameReadings(names[i]) {
			if j, dup := seen[k][key]; dup && names[j] != names[i] {
				return nameFault{fmt.Errorf("%w: tokens[%d].name: %s", ErrInvalidTokens, i, lookAlikeDetail(names[i], names[j], j, tok.Name == "", toks[j].Name == ""))}
			}
			seen[k][key] = i
		}
	}
	return nil
}

// nameReadings are the keys under which two names read alike: the UTS
// #39 skeleton of the name's NFKC case fold, case-folded again (a
// Cherokee letter folds to the capital whose skeleton is a Latin one),
// and the case fold of its NFKC skeleton ("I", whose skeleton is "l",
// would fold to "i" first).
func nameReadings(name string) [2]string {
	fold := func(s string) string { return cases.Fold().String(norm.NFKC.String(s)) }
	return [2]string{
		fold(confusables.Skeleton(fold(name))),
		fold(confusables.Skeleton(norm.NFKC.String(name))),
	}
}

// readsAlike reports whether a reader of the access log takes a for b:
// whether they share a reading (nameReadings).
func readsAlike(a, b string) bool {
	ra, rb := nameReadings(a), nameReadings(b)
	return ra[0] == rb[0] || ra[1] == rb[1]
}

// lookAlikeDetail says that name reads as other, the name of tokens[j],
// and where they first differ by code point. unnamed and otherUnnamed say
// that the file gives that token no name, so the name is the log's
// token-<index>: the message says so rather than quote it as given.
func lookAlikeDetail(name, other string, j int, unnamed, otherUnnamed bool) string {
	a, b := []rune(name), []rune(other)
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	var where string
	switch {
	case n < len(a) && n < len(b):
		where = fmt.Sprintf("%U where that has %U", a[n], b[n])
	case n < len(a):
		where = fmt.Sprintf("%U where that ends", a[n])
	default:
		where = fmt.Sprintf("no %U where that has one", b[n])
	}
	subject, owner := quoteName(name), "the name of"
	if unnamed {
		subject = fmt.Sprintf("none is given, so the token is named %s (token-<index>), which", quoteName(name))
	}
	if otherUnnamed {
		owner = "the name the log gives the nameless"
	}
	return fmt.Sprintf("%s reads as %s, %s tokens[%d] (it has %s): "+
		"the access log names a request by its token's name alone, so give each token a name that reads differently",
		subject, quoteName(other), owner, j, where)
}
