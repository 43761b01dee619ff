package recall

import (
	"math"
	"strings"
	"unicode"
)

// The speaker rule (Tuning.SpeakerWeight), part of the hybrid fusion: a
// question that names a participant of the conversation ("What did John
// recently get promoted to?") is answered by what that participant said,
// not by the turns that address or mention them ("Wow John! Congrats on
// the promotion!"). Both channels see the name as one more word, which
// the vocative carries as well as the speaker's own turn: the name
// prefixed to each turn (Doc.Text) and the name said to them weigh the
// same, and the addressee's question often shares more of the question's
// words than the answer does. The rule raises each candidate whose
// speaker (Doc.Name) the query names by δ standard deviations of the
// fused scores:
//
//	score = fused + δ × sd(fused)   when the query names the turn's speaker
//
// A name is matched as whole words of the folded query (every word of a
// multi-word name, in any order). Only speakers matter, never what a turn
// mentions: a query naming every speaker of its candidates (or none)
// raises all (or none) of them and changes no order. On the LoCoMo dev set
// 657 of the 678 questions that name one participant have an evidence
// turn said by that participant (642 only such turns).

// speakerBoost applies the speaker rule to fused (the scores of cands in
// input order; -Inf is left as it is) for the query text, with weight
// delta. With delta ≤ 0, no named speaker among the candidates, fewer than
// two ranked candidates or no spread, fused is left unchanged.
func speakerBoost(c Corpus, cands []candidate, fused []float64, text string, delta float64) {
	if delta <= 0 || len(cands) < 2 {
		return
	}
	words := queryWords(text)
	if len(words) == 0 {
		return
	}
	named := map[string]bool{} // a speaker's name → the query names it
	boost := make([]bool, len(cands))
	any := false
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		name := c.Doc(cands[i].ID).Name
		if name == "" {
			continue
		}
		is, seen := named[name]
		if !seen {
			is = namesSpeaker(words, name)
			named[name] = is
		}
		boost[i], any = is, any || is
	}
	if !any {
		return
	}
	_, sd, n := finiteStats(fused)
	if n < 2 || sd == 0 {
		return
	}
	for i := range fused {
		if boost[i] {
			fused[i] += delta * sd
		}
	}
}

// queryWords returns the set of the folded words of text (letters and
// digits).
func queryWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(Fold(text), notWordRune) {
		out[w] = true
	}
	return out
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// namesSpeaker reports whether the query's words hold every word of name
// (folded); a name without a word never matches.
func namesSpeaker(words map[string]bool, name string) bool {
	ws := strings.FieldsFunc(Fold(name), notWordRune)
	for _, w := range ws {
		if !words[w] {
			return false
		}
	}
	return len(ws) > 0
}
