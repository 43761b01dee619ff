package recall

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// AnalyzerName is the name of the lexical analyzer recall registers with
// bleve and builds its index with: the fold char filter (Fold) in front of
// bleve's "en" analyzer (unicode tokenizer, possessive filter, lowercase,
// English stop words, Porter stemmer).
//
// The name carries the analyzer's version: an index whose mapping names
// another analyzer was built with other terms, and OpenLexical refuses it
// with ErrStaleIndex so that the caller rebuilds it from the store. Change
// the name whenever the analysis changes.
const AnalyzerName = "mnemo-en-fold-1"

// foldCharFilter is the bleve char filter name of Fold.
const foldCharFilter = "mnemo-fold"

func init() {
	if err := registry.RegisterCharFilter(foldCharFilter, func(map[string]any, *registry.Cache) (analysis.CharFilter, error) {
		return foldFilter{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterAnalyzer(AnalyzerName, newAnalyzer); err != nil {
		panic(err)
	}
}

// newAnalyzer builds AnalyzerName: "en" with the fold char filter first
// and its unicode tokenizer given a direct path for ASCII text.
func newAnalyzer(config map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
	a, err := en.AnalyzerConstructor(config, cache)
	if err != nil {
		return nil, err
	}
	d, ok := a.(*analysis.DefaultAnalyzer)
	if !ok {
		return a, nil
	}
	d.CharFilters = append([]analysis.CharFilter{foldFilter{}}, d.CharFilters...)
	d.Tokenizer = asciiTokenizer{fallback: d.Tokenizer} // tokenize.go: the same tokens
	return d, nil
}

// foldFilter is Fold as a bleve char filter. ASCII input is returned as it
// is: Fold would only lowercase it, which the analyzer's lowercase filter
// does anyway, so English text is analysed exactly as before the filter.
type foldFilter struct{}

func (foldFilter) Filter(in []byte) []byte {
	if isASCII(in) {
		return in
	}
	return []byte(foldNonASCII(string(in)))
}

// Fold returns the search form of text, the one both channels see at index
// and at query time:
//
//  1. NFKC: compatibility forms become their plain letters (full-width
//     "ＡＢＣ" → "ABC", ligature "ﬁ" → "fi"), and NFC and NFD spellings of
//     a word become one;
//  2. Unicode case folding (full, not Turkic): "İstanbul" → "i̇stanbul",
//     "Straße" → "strasse";
//  3. accent folding: the combining diacritical marks are removed after
//     canonical decomposition ("résumé" → "resume", "i̇" → "i"), and a few
//     letters that carry their diacritic inside (ø ł đ ħ ı) are spelled
//     with their base letters.
//
// Only the combining marks of the Latin, Greek and Cyrillic diacritic
// blocks are removed: the voicing marks of kana (が stays が), the vowel
// signs and viramas of Indic scripts and Hangul's jamo are letters of their
// words, not accents. CJK text is otherwise unchanged (NFKC only widens
// half-width kana).
//
// Fold is pure and safe for concurrent use.
func Fold(text string) string {
	if isASCII([]byte(text)) {
		return toLowerASCII(text)
	}
	return foldNonASCII(text)
}

// folders pools the transformer chains: a transform.Transformer keeps
// state between calls and must not be shared by goroutines.
var folders = sync.Pool{New: func() any {
	return transform.Chain(
		norm.NFKC,
		cases.Fold(),
		norm.NFD,
		runes.Remove(runes.Predicate(isDiacritic)),
		runes.Map(baseLetter),
		norm.NFC,
	)
}}

func foldNonASCII(text string) string {
	t := folders.Get().(transform.Transformer)
	defer folders.Put(t)
	out, _, err := transform.String(t, text)
	if err != nil {
		// Only invalid UTF-8 beyond repair could get here; the text is
		// still searchable as it is.
		return text
	}
	return out
}

// isDiacritic reports whether r is a combining mark of the diacritic blocks
// (Combining Diacritical Marks, … Extended, … Supplement, … for Symbols,
// Combining Half Marks).
func isDiacritic(r rune) bool {
	switch {
	case r >= 0x0300 && r <= 0x036F,
		r >= 0x1AB0 && r <= 0x1AFF,
		r >= 0x1DC0 && r <= 0x1DFF,
		r >= 0x20D0 && r <= 0x20FF,
		r >= 0xFE20 && r <= 0xFE2F:
		return unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r)
	}
	return false
}

// baseLetter spells the (already case-folded) letters whose diacritic
// does not decompose with their base letter.
func baseLetter(r rune) rune {
	switch r {
	case 'ø':
		return 'o'
	case 'ł':
		return 'l'
	case 'đ':
		return 'd'
	case 'ħ':
		return 'h'
	case 'ı':
		return 'i'
	}
	return r
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func toLowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + ('a' - 'A')
				}
			}
			return string(b)
		}
	}
	return s
}
