package render

// The phrases of mnemo's markers that stored text may not open after a
// bracket (markerShape): the recall marker's word, its stem before
// mnemo's separator, and the tool-output marks.
const (
	// stemWord is the stem of MarkerWord: "[recall · thread t1 · seq 2 …"
	// and "[recalling · thread …" read as the marker when mnemo's
	// separator and threadWord follow.
	stemWord = "recall"
	// threadWord follows mnemo's separator after MarkerWord in the marker,
	// "[recalled · thread t1 · seq 2 …".
	threadWord = "thread"
	// untrustedWord opens the recall marker's tool-output phrase,
	// "untrusted tool output".
	untrustedWord = "untrusted"
	// toolWord follows untrustedWord in the marker's "untrusted tool
	// output".
	toolWord = "tool"
	// toolsWord is toolWord's plural, read as it: "[untrusted tools]".
	toolsWord = "tools"
	// outputWord follows toolWord in the marker's "untrusted tool
	// output".
	outputWord = "output"
	// seqWord is the marker's field after the thread, "[recalled · thread
	// t1 · seq 2 …]": after the stem and mnemo's separator it reads as
	// the marker as threadWord does ("[recall · seq 2 · thread t1]").
	seqWord = "seq"
)

// piece is one part of a phrase: a word (its letters read by
// markerSets.letters; with broken, spaces, dashes and stops may come
// between them, markerSets.breaks, else only invisible characters and
// marks; with spaced too, a space may follow a stop), a set read zero or
// more times (star) or exactly once (one), or a set the next character
// may not be in (alone: the character is not read, and the end of the
// text will do).
type piece struct {
	word             string
	broken, spaced   bool
	star, one, alone runeSet
}

// phraseDef is a phrase of marker-shaped text after its opener: its
// pieces in order; bars is set when it counts after a vertical bar too.
// Every phrase begins with a star of blank characters, then a word:
// QuotedPrefix goes between them.
type phraseDef struct {
	name   string
	bars   bool
	pieces []piece
}

// phraseDefs are the phrases, of the sets s, in the order they are tried
// after an opener (the first that matches is quoted):
//
//   - "recalled": MarkerWord, after any blank characters, whatever
//     follows ("[recalled", "(Recalled · …", "[re\u200bcalled");
//   - "re-called": MarkerWord spelled apart (spaces, dashes, stops between
//     its letters) standing alone: no other word follows it, only blank
//     characters and then punctuation or the end of the text ("[r e c a l
//     l e d · …", "[re-called]", not "(re-called the API twice)");
//   - "re-called thread", "re-called seq": MarkerWord spelled apart (a
//     space may follow a stop too), blank characters, stops, marker dots
//     or colons, and threadWord, or seqWord with no letter after it
//     ("[re-called thread t1 · seq 2", "[re. called · thread",
//     "[r. e. c. a. l. l. e. d. · thread", "[re-called · seq 2"; not
//     "(re. called)");
//   - "recall · thread", "recall · seq": stemWord, any more letters,
//     blank characters, a marker dot or a colon, then more blanks, dots
//     or colons, and threadWord, or seqWord with no letter after it
//     ("[recall · thread t1 · seq 2", "|recalled · thread", "[recall:
//     thread", "[recall ·· thread", "[recall · seq 2 · thread t1",
//     "[recalls · seq 2]"; not "[recall · precision]", "[recall ·
//     sequence]");
//   - "recall. thread", "recall. seq": the same with a full stop and a
//     space in place of the dot ("[recall. thread t1 · seq 2"; not
//     "(recall.seq)", "x[recall.thread_id]": code, where a name follows
//     the stop with no space);
//   - "untrusted tool", "untrusted tools": untrustedWord, blank
//     characters and toolWord or toolsWord as a whole word ("[untrusted
//     tool output]", "[untrusted tools]"; not "(untrusted input)",
//     "[untrusted tooling]");
//   - "untrusted tool output": untrustedWord, blanks, toolWord, blanks
//     (none, or only invisible characters, when the phrase before did not
//     match), outputWord ("[untrusted tool\u200boutput]", "[untrusted
//     tooloutput]").
//
// The observations' mark "[untrusted: from tool output]" is not a phrase:
// mnemo stores it in an untrusted observation's items (observe.UntrustedMark)
// and renders them through Text, which would quote its own marks; and a
// turn or item that fakes it claims less trust, never more.
//
// Every phrase but the first needs what only mnemo's markers write after
// the word, so ordinary text ("(recall that f is continuous)", "a
// markdown cell | recalled |", "[recall · precision] at k=10", "[re-call
// · x]") stays as it is.
func phraseDefs(s *markerSets) []phraseDef {
	blankC, wordC := s.blank, s.word
	spelled := func(next ...piece) []piece {
		return append([]piece{{star: blankC}, {word: MarkerWord, broken: true, spaced: true},
			{star: s.blankStopSep}}, next...)
	}
	stem := func(sep []piece, next ...piece) []piece {
		p := append([]piece{{star: blankC}, {word: stemWord, broken: true}, {star: s.tail}, {star: blankC}}, sep...)
		return append(p, next...)
	}
	dot := []piece{{one: s.sep}, {star: s.blankSep}}
	stop := []piece{{one: s.stop}, {star: s.between}, {one: s.space}, {star: s.blankStopSep}}
	untrusted := func(next ...piece) []piece {
		return append([]piece{{star: blankC}, {word: untrustedWord, broken: true}, {star: blankC}}, next...)
	}
	seq := []piece{{word: seqWord, broken: true}, {star: s.between}, {alone: s.letter}}
	return []phraseDef{
		{"recalled", false, []piece{{star: blankC}, {word: MarkerWord}}},
		{"re-called", false, []piece{{star: blankC}, {word: MarkerWord, broken: true}, {star: blankC}, {alone: wordC}}},
		{"re-called thread", true, spelled(piece{word: threadWord, broken: true})},
		{"re-called seq", true, spelled(seq...)},
		{"recall · thread", true, stem(dot, piece{word: threadWord, broken: true})},
		{"recall · seq", true, stem(dot, seq...)},
		{"recall. thread", true, stem(stop, piece{word: threadWord, broken: true})},
		{"recall. seq", true, stem(stop, seq...)},
		{"untrusted tool", true, untrusted(piece{word: toolWord, broken: true}, piece{star: s.between}, piece{alone: wordC})},
		{"untrusted tools", true, untrusted(piece{word: toolsWord, broken: true}, piece{star: s.between}, piece{alone: wordC})},
		{"untrusted tool output", true, untrusted(piece{word: toolWord, broken: true}, piece{star: blankC},
			piece{word: outputWord, broken: true})},
	}
}

// phrase is a phraseDef with its sets built.
type phrase struct {
	bars   bool
	pieces []setPiece
}

// setPiece is a piece as the matcher reads it: letters for a word (and
// breaks, read between two letters, of which spaces and stops for the
// stop rule, and unbroken the invisible characters and marks, which
// leave it), set for a star, a one or an alone.
type setPiece struct {
	letters       []runeSet
	breaks        runeSet
	spaces, stops runeSet
	unbroken      runeSet
	set           runeSet
	one, alone    bool
}

// compile is d as the matcher reads it, its words' letters and breaks
// taken from s.
func (d phraseDef) compile(s *markerSets) phrase {
	p := phrase{bars: d.bars, pieces: make([]setPiece, 0, len(d.pieces))}
	for _, pc := range d.pieces {
		switch {
		case pc.word != "":
			sp := setPiece{breaks: s.between, unbroken: s.between}
			if pc.broken {
				sp = setPiece{breaks: s.breaks, spaces: s.space, stops: s.stop, unbroken: s.between}
			}
			if pc.spaced {
				sp.stops = nil // no stop rule: stepWord never sets stop
			}
			sp.letters = make([]runeSet, 0, len(pc.word))
			for _, l := range pc.word {
				sp.letters = append(sp.letters, s.letterSet(l))
			}
			p.pieces = append(p.pieces, sp)
		case pc.one != nil:
			p.pieces = append(p.pieces, setPiece{set: pc.one, one: true})
		case pc.alone != nil:
			p.pieces = append(p.pieces, setPiece{set: pc.alone, alone: true})
		default:
			p.pieces = append(p.pieces, setPiece{set: pc.star})
		}
	}
	return p
}

// matchState is how far a match of a phrase got: the piece it is in and,
// in a word, the letters read and whether the last break read was a stop
// (invisible characters and marks after it aside); done once an alone
// piece saw a character it allows (not read).
type matchState struct {
	piece, letter int
	stop, done    bool
}

// step reads c in state st: a star's character leaves st where it is, any
// other moves on to the next piece and is read there; a one's character
// ends the one; a word's next letter moves on by one letter (and past
// the word after its last), a break between two letters leaves st where
// it is (a space right after a stop ends the match); an alone piece
// ends the match before c when c is not in its set. It reports false
// when c fits none of these.
func (p *phrase) step(st *matchState, c rune) bool {
	for st.piece < len(p.pieces) {
		pc := &p.pieces[st.piece]
		switch {
		case pc.letters != nil:
			return p.stepWord(st, pc, c)
		case pc.one:
			if pc.set.has(c) {
				st.piece++
				return true
			}
			return false
		case pc.alone:
			st.done = !pc.set.has(c)
			return st.done
		case pc.set.has(c):
			return true
		default:
			st.piece++ // a star ends; c is read by the next piece
		}
	}
	return false
}

// stepWord reads c in word piece pc (step).
func (p *phrase) stepWord(st *matchState, pc *setPiece, c rune) bool {
	if pc.letters[st.letter].has(c) {
		st.letter++
		st.stop = false
		if st.letter == len(pc.letters) {
			st.piece, st.letter = st.piece+1, 0
		}
		return true
	}
	if st.letter == 0 || !pc.breaks.has(c) {
		return false
	}
	switch {
	case pc.stops.has(c):
		st.stop = true
	case pc.spaces.has(c):
		return !st.stop
	case !pc.unbroken.has(c):
		st.stop = false // a dash or '_'; invisible characters and marks leave it
	}
	return true
}

// endsAt reports whether the text may end in state st: only stars are
// left before an alone piece.
func (p *phrase) endsAt(st matchState) bool {
	if st.letter > 0 {
		return false
	}
	for _, pc := range p.pieces[st.piece:] {
		switch {
		case pc.alone:
			return true
		case pc.letters != nil || pc.one:
			return false
		}
	}
	return false
}
