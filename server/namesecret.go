package server

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// minHeldSecret is the length in runes, once its invisible characters are
// dropped, from which a secret held inside a name refuses it: a secret is
// at least 8 characters (principal), so a name holding one is no accident.
const minHeldSecret = 8

// secretFault says how name shows a secret of secrets (the token field of
// each entry of the file, valid or not), or "": it is one ("is"); it
// reads as one (nameReadings: case, width, look-alike letters); once
// blanks around it and the runes a reader does not see (unseen) are
// dropped, it reads as one or holds one ("s3cret-alice ",
// "\u200bs3cret-alice", "x-s3cret-alice"). Every refusal of a name
// checks it first, so that none quotes a secret (9d90b3ab).
func secretFault(name string, secrets []string) string {
	if name == "" {
		return ""
	}
	const (
		is    = "is the secret of a token of this file"
		reads = "reads as the secret of a token of this file (they differ in case, width or look-alike letters only)"
		holds = "holds the secret of a token of this file, or reads as if it did (blanks, invisible characters, case, width and look-alike letters aside)"
	)
	rn, cn := nameReadings(name), nameReadings(visible(name))
	for _, s := range secrets {
		if name == s {
			return is
		}
		if rs := nameReadings(s); rs[0] == rn[0] || rs[1] == rn[1] {
			return reads
		}
		vs := visible(s)
		if utf8.RuneCountInString(vs) < minHeldSecret {
			continue
		}
		if cs := nameReadings(vs); strings.Contains(name, s) || strings.Contains(cn[0], cs[0]) || strings.Contains(cn[1], cs[1]) {
			return holds
		}
	}
	return ""
}

// visible is s without the runes a reader does not see (unseen) and the
// blanks around it.
func visible(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unseen(r) {
			return -1
		}
		return r
	}, s))
}

// checkNamesNotSecrets refuses a token whose name is a token's secret (its
// own or another's), reads as one (see readsAlike: "aaaaaaaaaaaa1" beside
// a secret "Aaaaaaaaaaaa1") or holds one (see secretFault): the access log
// and the metrics write every request's token name in clear, so the
// secret, or all a reader needs to guess it, would be written with each
// request. The error names the entry by its index only, never the name
// nor the secret. ParseTokens runs it before any other check of a name,
// since those quote the name.
func checkNamesNotSecrets(toks []Token) error {
	secrets := make([]string, len(toks))
	for i, tok := range toks {
		secrets[i] = tok.Token
	}
	for i, tok := range toks {
		if f := secretFault(tok.Name, secrets); f != "" {
			return nameFault{fmt.Errorf("%w: tokens[%d].name: %s; the access log and the metrics write a token's name in clear with every request: give the token a name that is no secret", ErrInvalidTokens, i, f)}
		}
	}
	return nil
}
