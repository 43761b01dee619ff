package recall

import (
	"math"
	"regexp"
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
//
// The assistant is named by "you" in a question about what it said or did
// ("what was the move you made after 27. Kg2?", "You mentioned using a
// light beer …", "the list you provided"): such a question (youSaid) raises
// the assistant's turns (Doc.Role "assistant") as a name raises its
// speaker's. A request ("Can you suggest …?") names no one: the answer to
// it is still to be found in what the user said.

// speakerBoost applies the speaker rule to fused (the scores of cands in
// input order; -Inf is left as it is) for the query text, with weight
// delta. With delta ≤ 0, no named speaker among the candidates, fewer than
// two ranked candidates or no spread, fused is left unchanged.
func speakerBoost(c Corpus, cands []candidate, fused []float64, text string, delta float64) {
	if delta <= 0 || len(cands) < 2 {
		return
	}
	words := queryWords(text)
	named := map[string]bool{} // a speaker's name → the query names it
	assistant := youSaid.MatchString(text)
	boost := make([]bool, len(cands))
	any := false
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		d := c.Doc(cands[i].ID)
		if assistant && d.Role == "assistant" {
			boost[i], any = true, true
			continue
		}
		name := d.Name
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
	if any {
		raiseBySD(fused, boost, delta)
	}
}

// youSaid matches a question about what the assistant said or did: "you"
// (optionally "you've", "you have", "you had", one word between) before a
// verb of saying, giving or making in the past tense.
var youSaid = regexp.MustCompile(`(?i)\byou(?:'ve|’ve| have| had)? (?:\w+ )?(?:said|told|mentioned|recommended|suggested|provided|gave|made|listed|shared|wrote|explained|described|proposed)\b`)

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

// raiseBySD adds delta standard deviations of the finite fused scores to
// each fused[i] whose raise[i] is set (the speaker and date rules); it
// does nothing when fewer than two scores are finite or they are all equal.
func raiseBySD(fused []float64, raise []bool, delta float64) {
	_, sd, n := finiteStats(fused)
	if n < 2 || sd == 0 {
		return
	}
	for i := range fused {
		if raise[i] {
			fused[i] += delta * sd
		}
	}
}
