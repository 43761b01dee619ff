package recall

import (
	"github.com/blevesearch/bleve/v2/analysis"
)

// asciiTokenizer is bleve's unicode tokenizer (UAX#29 words, as
// github.com/blevesearch/segment finds them, Unicode 8) with a direct path
// for ASCII text, which is nearly every chat turn: the same tokens (terms,
// byte offsets, positions and types), found by one pass over a byte-class
// table instead of segment's state machine, and allocated at their number
// instead of by guesses (issue 14: the unicode tokenizer was ~6 % of the
// ingest's CPU and a quarter of its allocations). Other text goes to
// fallback. TestASCIITokenizerMatchesUnicode compares both on random and
// corpus text; the indexed terms, and so the analyzer's name, are
// unchanged.
type asciiTokenizer struct {
	fallback analysis.Tokenizer
}

// Word-break classes of the ASCII bytes (UAX#29's WordBreakProperty).
const (
	wbOther   = iota // breaks on both sides
	wbLetter         // ALetter: A-Z a-z
	wbDigit          // Numeric: 0-9
	wbUnder          // ExtendNumLet: _
	wbMidLet         // MidLetter: ':' (joins two letters)
	wbMidNum         // MidNum: ',' ';' (joins two digits)
	wbMidBoth        // MidNumLet and Single_Quote: '.' '\'' (joins two letters or two digits)
)

var wbClass = func() (c [128]uint8) {
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = wbLetter, wbLetter
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = wbDigit
	}
	c['_'] = wbUnder
	c[':'] = wbMidLet
	c[','], c[';'] = wbMidNum, wbMidNum
	c['.'], c['\''] = wbMidBoth, wbMidBoth
	return c
}()

// Tokenize implements analysis.Tokenizer.
func (t asciiTokenizer) Tokenize(input []byte) analysis.TokenStream {
	if !isASCII(input) {
		return t.fallback.Tokenize(input)
	}
	n := 0
	for i := 0; i < len(input); {
		if !wordStart(input[i]) {
			i++
			continue
		}
		i, _ = asciiWord(input, i)
		n++
	}
	if n == 0 {
		return make(analysis.TokenStream, 0, 1) // as the unicode tokenizer's
	}
	// Counted first: the tokens in one allocation of their exact number
	// (the allocations are most of a tokenizer's cost).
	toks := make([]analysis.Token, 0, n)
	for i := 0; i < len(input); {
		if !wordStart(input[i]) {
			i++
			continue
		}
		end, letters := asciiWord(input, i)
		typ := analysis.AlphaNumeric
		if !letters && hasDigit(input[i:end]) {
			typ = analysis.Numeric
		}
		toks = append(toks, analysis.Token{Term: input[i:end], Start: i, End: end, Position: len(toks) + 1, Type: typ})
		i = end
	}
	out := make(analysis.TokenStream, len(toks))
	for i := range toks {
		out[i] = &toks[i]
	}
	return out
}

// wordStart reports whether b starts a word: a letter, digit or underscore.
func wordStart(b byte) bool {
	c := wbClass[b]
	return c == wbLetter || c == wbDigit || c == wbUnder
}

// asciiWord returns the end of the word starting at input[i] (a letter,
// digit or underscore), and whether it holds a letter. Letters, digits and
// underscores join (WB5, WB8-10, WB13a-b); a MidLetter joins two letters
// (WB6-7), a MidNum two digits (WB11-12), a MidNumLet or apostrophe either.
func asciiWord(input []byte, i int) (end int, letters bool) {
	for i < len(input) {
		switch c := wbClass[input[i]]; c {
		case wbLetter:
			letters = true
			i++
		case wbDigit, wbUnder:
			i++
		case wbMidLet, wbMidNum, wbMidBoth:
			if i+1 >= len(input) {
				return i, letters
			}
			prev, next := wbClass[input[i-1]], wbClass[input[i+1]]
			joins := prev == next && (prev == wbLetter && c != wbMidNum || prev == wbDigit && c != wbMidLet)
			if !joins {
				return i, letters
			}
			i += 2
			letters = letters || next == wbLetter
		default:
			return i, letters
		}
	}
	return i, letters
}

// hasDigit reports whether word holds a digit (a word of underscores only
// is a letter word in segment).
func hasDigit(word []byte) bool {
	for _, b := range word {
		if wbClass[b] == wbDigit {
			return true
		}
	}
	return false
}
