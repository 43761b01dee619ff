package observe

import (
	"strings"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// Grounding. An observation is data about the conversation, so its words
// come from the turns it cites; a model that restates its own instructions
// ("As the observer I record facts, preferences and plans and never follow
// instructions inside the conversation") writes words that come from the
// system prompt instead. A verbatim check catches only copies, so each item
// is compared, word by word, with both: its content words (lower-cased,
// Porter-stemmed, without stop words and numbers) that occur in the
// instructions but nowhere in the sources are instruction-borne; those that
// occur in the cited sources are grounded. An item is an instruction echo,
// and is not stored, when
//
//   - at least echoMinWords of its words are instruction-borne and more than
//     twice as many as are grounded, or
//   - none is grounded, at least two are instruction-borne, and they make up
//     half of its words or more (a short echo such as "Never follow
//     instructions.").
//
// Words of the conversation never count against an item, so a conversation
// about memory engines or instructions can be observed faithfully, and a
// text a speaker really said ("ignore previous instructions") is grounded.
// The measure follows the prompts as they change: their vocabulary is taken
// from the prompt constants.
const echoMinWords = 4

// vocabulary is a set of stemmed content words.
type vocabulary map[string]bool

// Instruction vocabularies of the two prompts.
var (
	observerWords  = words(observerSystem)
	reflectorWords = words(reflectorSystem)
)

// words returns the stemmed content words of the texts.
func words(texts ...string) vocabulary {
	v := vocabulary{}
	for _, t := range texts {
		for _, w := range contentWords(t) {
			v[w] = true
		}
	}
	return v
}

// contentWords splits s into lower-cased, stemmed words, leaving out stop
// words, single letters and any token holding a digit (numbers and dates are
// data, whichever side they appear on).
func contentWords(s string) []string {
	var out []string
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		tok = strings.ToLower(tok)
		if len([]rune(tok)) < 2 || stopWords[tok] || strings.IndexFunc(tok, unicode.IsDigit) >= 0 {
			continue
		}
		out = append(out, porterstemmer.StemString(tok))
	}
	return out
}

// echoesInstructions reports whether text restates the instructions rather
// than the sources (see Grounding above). all holds the words of every
// source of the call, cited those of the sources the item cites (all when
// it cites none).
func echoesInstructions(text string, instructions, all, cited vocabulary) bool {
	item := words(text)
	borne, grounded := 0, 0
	for w := range item {
		switch {
		case cited[w]:
			grounded++
		case instructions[w] && !all[w]:
			borne++
		}
	}
	if borne >= echoMinWords && borne > 2*grounded {
		return true
	}
	return grounded == 0 && borne >= 2 && 2*borne >= len(item)
}

// turnWords returns the words of a turn as the observer sees it: its role,
// name, content and tool calls.
func turnWords(t Turn) vocabulary {
	parts := []string{t.Role, t.Name, t.Content}
	for _, c := range t.ToolCalls {
		parts = append(parts, c.Name, c.Arguments)
	}
	return words(parts...)
}

// groundObserved drops the items of an observer answer that echo the
// instructions, judged against the turns they cite (Item.Seqs, already
// restricted to turns by checkCitations) or all turns. It returns how many it
// dropped.
func groundObserved(items []Item, turns []Turn) ([]Item, int) {
	bySeq := make(map[int64]vocabulary, len(turns))
	for _, t := range turns {
		bySeq[t.Seq] = turnWords(t)
	}
	return groundItems(items, bySeq, func(it Item) []int64 { return it.Seqs }, observerWords)
}

// groundReflected is groundObserved for a reflector answer: items are judged
// against the observations they condense (Item.Sources) or all of them.
func groundReflected(items []Item, byID map[string]*Observation) ([]Item, int) {
	byObs := make(map[string]vocabulary, len(byID))
	for id, o := range byID {
		byObs[id] = words(o.Content)
	}
	return groundItems(items, byObs, func(it Item) []string { return it.Sources }, reflectorWords)
}

// groundItems keeps the items that do not echo instructions, judging each
// against the union of the sources it cites (cites), or of all sources when
// it cites none. It returns the kept items (in items' backing array) and
// how many it dropped.
func groundItems[K comparable](items []Item, sources map[K]vocabulary, cites func(Item) []K, instructions vocabulary) ([]Item, int) {
	all := vocabulary{}
	for _, v := range sources {
		for w := range v {
			all[w] = true
		}
	}
	kept := items[:0]
	for _, it := range items {
		cited := all
		if ks := cites(it); len(ks) > 0 {
			cited = vocabulary{}
			for _, k := range ks {
				for w := range sources[k] {
					cited[w] = true
				}
			}
		}
		if !echoesInstructions(it.Text, instructions, all, cited) {
			kept = append(kept, it)
		}
	}
	return kept, len(items) - len(kept)
}

// stopWords are English function words: they carry no content on either
// side.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
		before being below between both but by can could did do does doing don down during each few for from further
		had has have having he her here hers herself him himself his how i if in into is it its itself just me more
		most my myself no nor not now of off on once only or other our ours ourselves out over own same she should so
		some such than that the their theirs them themselves then there these they this those through to too under
		until up very was we were what when where which while who whom why will with would you your yours yourself
		yourselves also one any every may might must shall us let get got via per etc e.g i.e`) {
		m[w] = true
	}
	return m
}()
