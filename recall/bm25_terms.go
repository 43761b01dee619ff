package recall

import (
	"iter"
	"slices"
	"strings"
)

// termDict numbers a shard's distinct analysed terms (bm25Stats.ids). A
// shard built from the Source keeps them in a map. A shard read from a
// snapshot would spend a large part of its first use inserting its tens of
// thousands of terms into one (at 100,000 messages ~320 page faults and
// the hashing of every term: issue 14); instead the snapshot stores its
// terms by id with their ids sorted by term (snapshot_format.go, v8), used
// in place in the mapping, and a lookup is a binary search over them, as
// docIndex does for the message ids. Terms numbered after the load go to
// the map.
//
// The zero termDict is empty and usable. Methods are called under the
// shard's lock (lookup and all for reading, put for writing).
type termDict struct {
	m map[string]uint32 // terms not in the file
	// The file's terms: term id i is blob[offs[i]:offs[i+1]], and byTerm
	// holds the ids by ascending term, each once (all in the mapping).
	blob   string
	offs   []uint32
	byTerm []uint32
}

// lookup returns the id of term, and whether it has one.
func (d *termDict) lookup(term string) (uint32, bool) {
	if len(d.byTerm) > 0 {
		i, found := slices.BinarySearchFunc(d.byTerm, term, func(id uint32, t string) int {
			return strings.Compare(d.fileTerm(id), t)
		})
		if found {
			return d.byTerm[i], true
		}
	}
	id, ok := d.m[term]
	return id, ok
}

// fileTerm returns the term of the file's id.
func (d *termDict) fileTerm(id uint32) string { return d.blob[d.offs[id]:d.offs[id+1]] }

// put numbers term, which has no id yet, id.
func (d *termDict) put(term string, id uint32) {
	if d.m == nil {
		d.m = map[string]uint32{}
	}
	d.m[term] = id
}

// all yields every term with its id, in no set order.
func (d *termDict) all() iter.Seq2[string, uint32] {
	return func(yield func(string, uint32) bool) {
		for id := range len(d.byTerm) {
			if !yield(d.fileTerm(uint32(id)), uint32(id)) {
				return
			}
		}
		for t, id := range d.m {
			if !yield(t, id) {
				return
			}
		}
	}
}
