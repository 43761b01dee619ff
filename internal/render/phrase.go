package render

// The phrases of mnemo's markers that stored text may not open after a
// bracket (markerShape): the recall marker's word, its stem before
// mnemo's separator, and the tool-output marks.
const (
	// stemWord is the stem of MarkerWord: "[recall · thread t1 · seq 2 …"
	// and "[recalling · …" read as the marker when mnemo's separator
	// follows.
	stemWord = "recall"
	// untrustedWord opens the recall marker's tool-output phrase,
	// "untrusted tool output".
	untrustedWord = "untrusted"
	// toolWord follows untrustedWord in the marker's "untrusted tool
	// output".
	toolWord = "tool"
)

// markerDots are mnemo's separator in a marker, the middle dot, and what a
// reader takes for it (bullet, bullet operator, dot operator, katakana
// middle dot, hyphenation point, word separator middle dot, Latin
// sinological dot), as regexp character class members; their
// compatibility forms (the Greek ano teleia, the half-width katakana
// middle dot) are read through baseForm.
const markerDots = `·•∙⋅・‧⸱ꞏ`

// markerDashes are the characters read as a break inside a word, as
// regexp character class members, with the spaces and invisible
// characters: dashes and hyphens (\p{Pd}), the minus sign, the underscore
// and the full stop ("[re-called", "[r.e.c.a.l.l.e.d", "[re_called").
const markerDashes = `\p{Pd}\x{2212}_.`

// piece is one part of a phrase, as regexp character class members: a
// word (its letters read by letterClasses, with breakClass characters
// between them), or a set read zero or more times (star) or exactly once
// (one).
type piece struct {
	word, star, one string
}

// phraseDef is a phrase of marker-shaped text after its opener: its
// pieces in order; bars is set when it counts after a vertical bar too.
type phraseDef struct {
	name   string
	bars   bool
	pieces []piece
}

// phraseDefs are the phrases, in the order they are tried after an
// opener (the first that matches is quoted):
//
//   - "recalled": MarkerWord, after any blank characters, whatever
//     follows ("[recalled", "(Recalled · …", "[r e c a l l e d");
//   - "recall ·": stemWord, any more letters, blank characters and a
//     marker dot ("[recall · thread t1 · seq 2", "|recalled · thread");
//   - "untrusted tool": untrustedWord, blank characters and toolWord
//     ("[untrusted tool output]"), not "(untrusted input)".
//
// The observations' mark "[untrusted: from tool output]" is not a phrase:
// mnemo stores it in an untrusted observation's items (observe.UntrustedMark)
// and renders them through Text, which would quote its own marks; and a
// turn or item that fakes it claims less trust, never more.
//
// Every phrase but the first needs what only mnemo's markers write after
// the word, so ordinary text ("(recall that f is continuous)", "a
// markdown cell | recalled |") stays as it is.
func phraseDefs() []phraseDef {
	blankC := markerBlankClass()
	return []phraseDef{
		{"recalled", false, []piece{{star: blankC}, {word: MarkerWord}}},
		{"recall ·", true, []piece{{star: blankC}, {word: stemWord}, {star: tailClass()}, {star: blankC}, {one: withForms(markerDots)}}},
		{"untrusted tool", true, []piece{{star: blankC}, {word: untrustedWord}, {star: blankC}, {word: toolWord}}},
	}
}

// phrase is a phraseDef with its sets built.
type phrase struct {
	bars   bool
	pieces []setPiece
}

// setPiece is a piece with its sets built: letters for a word (and
// breaks, read between two letters), set for a star or one.
type setPiece struct {
	letters []runeSet
	breaks  runeSet
	set     runeSet
	one     bool
}

// compile builds d's sets.
func (d phraseDef) compile() phrase {
	classes := letterClasses()
	breaks := classSet(breakClass())
	p := phrase{bars: d.bars}
	for _, pc := range d.pieces {
		switch {
		case pc.word != "":
			sp := setPiece{breaks: breaks}
			for _, l := range pc.word {
				sp.letters = append(sp.letters, classSet(classes[l]))
			}
			p.pieces = append(p.pieces, sp)
		case pc.one != "":
			p.pieces = append(p.pieces, setPiece{set: classSet(pc.one), one: true})
		default:
			p.pieces = append(p.pieces, setPiece{set: classSet(pc.star)})
		}
	}
	return p
}

// matchState is how far a match of a phrase got: the piece it is in and,
// in a word, the letters read.
type matchState struct {
	piece, letter int
}

// step reads c in state st: a star's character leaves st where it is, any
// other moves on to the next piece and is read there; a one's character
// ends the one; a word's next letter moves on by one letter (and past
// the word after its last), a break between two letters leaves st where
// it is. It reports false when c fits none of these.
func (p *phrase) step(st *matchState, c rune) bool {
	for st.piece < len(p.pieces) {
		pc := &p.pieces[st.piece]
		switch {
		case pc.letters != nil:
			if pc.letters[st.letter].has(c) {
				st.letter++
				if st.letter == len(pc.letters) {
					st.piece, st.letter = st.piece+1, 0
				}
				return true
			}
			return st.letter > 0 && pc.breaks.has(c)
		case pc.one:
			if pc.set.has(c) {
				st.piece++
				return true
			}
			return false
		case pc.set.has(c):
			return true
		default:
			st.piece++ // a star ends; c is read by the next piece
		}
	}
	return false
}
