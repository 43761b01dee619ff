package render

import (
	"strings"
	"sync"
)

//go:generate go test -run ^TestMarkerTables$ -update .

// markerSets are the sets of characters markerShape is made of. Each is
// defined, and built from Unicode's data (compatibility decompositions,
// categories), in lookalike_internal_test.go (reference.sets); tableSets
// (tables.go) are those sets written out by TestMarkerTables -update
// (go generate ./internal/render). Building them reads some 16,000
// characters' decompositions and parses regexp classes: 10 ms of CPU,
// 13–14 ms in a fresh process, which every process paid on its first
// Message; from the tables markerShapes takes 0.04 ms, 0.13–0.18 ms in a
// fresh process (BenchmarkMarkerShapes; BENCHMARKS.md, fu73).
// TestMarkerTables checks that the tables are the reference's sets, set
// by set, so a change of a definition, of Go's Unicode tables or of
// golang.org/x/text fails it until the tables are generated again.
type markerSets struct {
	// brackets are the opening brackets and their look-alikes
	// (markerBrackets withForms); bars the vertical bars (markerBars
	// withForms).
	brackets, bars runeSet
	// letters are, for each letter of phraseLetters in its order, the
	// characters read as it (letterClasses).
	letters [len(phraseLetters)]runeSet
	// between are the invisible characters and combining marks; space the
	// characters read as a space (spaceClass); blank both
	// (markerBlankClass); stop the full stops (stopClass); sep mnemo's
	// separators, the marker dots and colons (withForms); breaks what may
	// come between the letters of a word spelled apart (breakClass).
	between, space, blank, stop, sep, breaks runeSet
	// word is what continues a word (wordClass), letter a letter
	// (letterClass), tail what may follow stemWord (tailClass).
	word, letter, tail runeSet
	// blankSep is blank and sep; blankStopSep blank, stop and sep.
	blankSep, blankStopSep runeSet
	// spelled are the characters read as several (spelledForms), in
	// order.
	spelled []spelledRune
}

// spelledRune is a character read as several, and those: "㎈", "cal".
type spelledRune struct {
	r    rune
	form string
}

// phraseLetters are the letters of the phrases' words (phraseDefs), each
// once.
const phraseLetters = "recaldunstohpq"

// letterSet is the set of characters read as l, a letter of
// phraseLetters.
func (s *markerSets) letterSet(l rune) runeSet {
	return s.letters[strings.IndexRune(phraseLetters, l)]
}

// markerShapes is the markerShape, built on first use (Message) from
// tableSets.
var markerShapes = sync.OnceValue(func() *markerShape { return newMarkerShape(&tableSets) })

// newMarkerShape is the markerShape of the sets s.
func newMarkerShape(s *markerSets) *markerShape {
	m := &markerShape{brackets: s.brackets, bars: s.bars, spelled: s.spelled}
	for _, d := range phraseDefs(s) {
		m.phrases = append(m.phrases, d.compile(s))
	}
	return m
}
