package observe

import (
	"slices"
	"strings"
)

// Dropped counts what the engine took out of one model answer before
// recording it (Answer.Dropped). As JSON each count is left out when zero.
type Dropped struct {
	// Citations counts cited seqs outside the chunk sent, taken out of
	// items that also cite a seq of the chunk.
	Citations int `json:"citations,omitempty"`
	// Uncited counts items dropped because every seq they cite is outside
	// the chunk: they are about turns the model was not shown.
	Uncited int `json:"uncited,omitempty"`
	// Duplicates counts items whose text repeats an earlier item of the
	// same answer (compared case-insensitively); their citations join the
	// first one's.
	Duplicates int `json:"duplicates,omitempty"`
	// Echoes counts items that restated the instructions (ground.go).
	Echoes int `json:"echoes,omitempty"`
}

// any reports whether d counts anything.
func (d Dropped) any() bool { return d != Dropped{} }

// checkCitations checks the observer items of an answer against the turns
// of the chunk they were distilled from, and marks their trust. Of each
// item's cited seqs it keeps those of turns (sorted, each once) and counts
// the others (Dropped.Citations); an item whose every citation is outside
// the chunk is dropped (Dropped.Uncited); an item citing nothing is kept,
// its words later grounded against the whole chunk. An item whose text
// repeats an earlier one's is merged into it (Dropped.Duplicates). Every
// item is untrusted when any turn is (untrustedTurns): trust follows the
// sources, not the model's citations, since a model can copy tool text
// into an item that cites only a person's turn. It returns the kept items
// (in items' backing array).
func checkCitations(items []Item, turns []Turn) ([]Item, Dropped) {
	in := make(map[int64]bool, len(turns))
	for _, t := range turns {
		in[t.Seq] = true
	}
	untrusted := untrustedTurns(turns)
	var d Dropped
	first := map[string]int{} // lower-cased text -> index in kept
	kept := items[:0]
	for _, it := range items {
		cited := len(it.Seqs)
		it.Seqs = slices.DeleteFunc(it.Seqs, func(s int64) bool { return !in[s] })
		if cited > 0 && len(it.Seqs) == 0 {
			d.Uncited++
			continue
		}
		d.Citations += cited - len(it.Seqs)
		it.Untrusted = untrusted
		key := strings.ToLower(it.Text)
		if i, ok := first[key]; ok {
			d.Duplicates++
			kept[i].Seqs = append(kept[i].Seqs, it.Seqs...)
			continue
		}
		first[key] = len(kept)
		kept = append(kept, it)
	}
	for i := range kept {
		slices.Sort(kept[i].Seqs)
		kept[i].Seqs = slices.Compact(kept[i].Seqs)
		if len(kept[i].Seqs) == 0 {
			kept[i].Seqs = nil
		}
	}
	return kept, d
}
