package recall

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// Answer types (Tuning.NoAnswerTypes): a question's wh-phrase says what
// kind of expression its answer is ("How long …?" a duration, "When …?" a
// time, "How many …?" a number), and the turn that answers it usually
// holds one ("I spent two weeks traveling", "I went to the support group
// yesterday", "I now lead a team of five engineers") where the
// turns around it that share the question's words often do not: answer-
// type matching, a classic signal of passage retrieval for question
// answering. Each type is scored like the dates a query names (dates.go):
// a message holding an expression of the type carries the type as one
// more term (entry.atypes, found by a word scan at putDoc), and a question
// asking for the type has it as one more query term, weighed by BM25 with
// the idf of the share of the resource's messages that carry it (a type
// most messages carry weighs little) and tf 1. The type does not count in
// a message's length, so no other term's score moves.

// Answer types, the bits of entry.atypes.
const (
	typeDuration uint8 = 1 << iota // "two weeks", "a few days", "3 months"
	typeTime                       // "yesterday", "last Friday", "in May", "2022", "ago"
	typeCount                      // "4 engineers", "five", "a dozen" (a number that is not a year)
	numTypes     = 3
)

// AnswerDuration, AnswerTime and AnswerCount are the answer types' bits as
// AnswerBits returns them and AskedTypes lists them: what another backend
// stores per message and counts per resource.
const (
	AnswerDuration = typeDuration
	AnswerTime     = typeTime
	AnswerCount    = typeCount
	// NumAnswerTypes is how many answer types there are (bits 0 to
	// NumAnswerTypes−1).
	NumAnswerTypes = numTypes
)

// AnswerBits returns the answer types whose expressions text holds (a
// message's Doc.Text, as the lexical channel tags it at indexing): an OR
// of AnswerDuration, AnswerTime and AnswerCount, 0 for none.
func AnswerBits(text string) uint8 { return answerBits(text) }

// AskedTypes returns the answer types a query text asks for, one bit each
// in bit order (the order the lexical channel sums their weights in); nil
// when it asks for none. A searcher drops a type no message of the
// resource carries and weighs the others by their idf, tf 1, not counted
// in the message's length (as the lexical channel does).
func AskedTypes(text string) []uint8 {
	var out []uint8
	for i, q := range typeQuestions {
		if q.MatchString(text) {
			out = append(out, 1<<i)
		}
	}
	return out
}

// typeQuestions are what a question asking for each type looks like.
var typeQuestions = [numTypes]*regexp.Regexp{
	regexp.MustCompile(`(?i)\bhow long\b`),
	regexp.MustCompile(`(?i)^\s*when\b|\bwhat (?:time|date|day|year|month)\b|\bwhich (?:day|year|month)\b`),
	regexp.MustCompile(`(?i)\bhow (?:many|much)\b`),
}

var (
	// counts a duration may start with ("a few" and "a couple of" end in
	// "few" and "of").
	durationCounts = wordSet("a an one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty few several many couple of")
	durationUnits  = wordSet("second seconds minute minutes hour hours day days night nights week weeks weekend weekends month months year years decade decades")
	durationFiller = wordSet("more whole full long")
	// timeWords are time expressions on their own; the weekday and month
	// names ("may" and "march" only before a number or after a
	// preposition, as they are verbs too).
	timeWords  = wordSet("yesterday today tonight tomorrow ago recently monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays january february april june july august september october november december")
	timeAfter  = wordSet("last this next")
	timePeriod = wordSet("night morning evening week weekend month year summer winter spring fall autumn monday tuesday wednesday thursday friday saturday sunday")
	monthVerbs = wordSet("may march")
	// countWords are numbers written out ("one" is left out: it is
	// mostly a pronoun).
	countWords = wordSet("two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen twenty thirty forty fifty hundred thousand dozen")
	monthPreps = wordSet("in on of during since until by early late mid")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// answerBits returns the types whose expressions text holds, by one scan
// of its lower-cased words with a window of three (a regular expression
// per type cost 200 µs a message).
func answerBits(text string) uint8 {
	lower := strings.ToLower(text)
	var bits uint8
	var w [3]string // w[2] is the newest word
	check := func() {
		prev, cur, next := w[0], w[1], w[2]
		if (durationCounts[prev] || isNumber(prev)) && (durationUnits[cur] || durationFiller[cur] && durationUnits[next]) {
			bits |= typeDuration
		}
		if (isNumber(cur) && !isYear(cur)) || countWords[cur] {
			bits |= typeCount
		}
		if timeWords[cur] || timeAfter[cur] && timePeriod[next] || isYear(cur) || monthVerbs[cur] && (isNumber(next) || monthPreps[prev]) {
			bits |= typeTime
		}
	}
	start := -1
	for i, r := range lower {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			w[0], w[1], w[2] = w[1], w[2], lower[start:i]
			start = -1
			check()
		}
	}
	if start >= 0 {
		w[0], w[1], w[2] = w[1], w[2], lower[start:]
		check()
	}
	w[0], w[1], w[2] = w[1], w[2], ""
	check()
	return bits
}

func isNumber(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isYear: 1900–2099.
func isYear(w string) bool {
	return len(w) == 4 && isNumber(w) && (w[:2] == "19" || w[:2] == "20")
}

// typeTerm is an answer type a query asks for, scored as a BM25 term.
type typeTerm struct {
	bit uint8
	idf float64
}

// typeTerms returns the types text asks for with their idf over the
// shard's messages; a type no message carries is dropped.
func typeTerms(text string, s *shard) []typeTerm {
	if s.stats.n == 0 {
		return nil
	}
	var out []typeTerm
	for i, q := range typeQuestions {
		if df := s.typeDF[i]; df > 0 && q.MatchString(text) {
			out = append(out, typeTerm{1 << i, bm25.IDF(float64(s.stats.n), float64(df))})
		}
	}
	return out
}

// typeScore is the BM25 contribution of the query's answer types to a
// message carrying the types bits, of doclen analysed terms (tf 1).
func (s *bm25Stats) typeScore(tts []typeTerm, bits uint8, doclen int) float64 {
	if len(tts) == 0 || bits == 0 || s.n == 0 {
		return 0
	}
	var sum float64
	avgdl := float64(s.totalLen) / float64(s.n)
	for _, t := range tts {
		if bits&t.bit != 0 {
			sum += bm25.Weight(t.idf, 1, bm25.Norm(float64(doclen), avgdl))
		}
	}
	return sum
}

// countTypes adds sign (+1 or −1) to the document frequency of each type
// in bits (caller holds s.mu for writing).
func (s *shard) countTypes(bits uint8, sign int) {
	for i := range numTypes {
		if bits&(1<<i) != 0 {
			s.typeDF[i] += sign
		}
	}
}
