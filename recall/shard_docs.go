package recall

import (
	"iter"
	"slices"
	"strings"
)

// docIndex finds a shard's entries by message id. A shard built from the
// Source keeps them in a map. A shard read from a snapshot would spend
// ~17 ms of its first use (100,000 messages) inserting them into one, and
// the garbage collector would scan its buckets ever after; instead the
// snapshot stores its messages' ords sorted by id (snapshot_format.go),
// used in place in the mapping, and a lookup is a binary search over them
// (issue 14). Entries put after the load (a catch-up, Index.Add) go to the
// map, and removing a snapshot entry clears its place in file.
//
// The zero docIndex is empty and usable. Methods are called under the
// shard's lock (get, len and all for reading, the others for writing).
type docIndex struct {
	m map[string]*entry // entries not in file
	// file holds the entries read from the snapshot by ord (nil once
	// removed); the id of ord o is ids[offs[o]:offs[o+1]], and byID holds
	// the ords by ascending id, each once (all three in the mapping:
	// hitID copies an id that leaves the shard).
	file []*entry
	ids  string
	offs []uint32
	byID []uint32
	n    int // live entries
}

// get returns the entry of id, nil when there is none.
func (x *docIndex) get(id string) *entry {
	if e := x.m[id]; e != nil {
		return e
	}
	if len(x.byID) == 0 {
		return nil
	}
	i, found := slices.BinarySearchFunc(x.byID, id, func(o uint32, id string) int {
		return strings.Compare(x.fileID(o), id)
	})
	if !found {
		return nil
	}
	return x.file[x.byID[i]]
}

// fileID returns the id of the snapshot entry of ord o, live or not.
func (x *docIndex) fileID(o uint32) string { return x.ids[x.offs[o]:x.offs[o+1]] }

// len returns the number of live entries.
func (x *docIndex) len() int { return x.n }

// put adds e, an entry of a new id.
func (x *docIndex) put(e *entry) {
	if x.m == nil {
		x.m = map[string]*entry{}
	}
	x.m[e.doc.ID] = e
	x.n++
}

// remove drops e, an entry of the index.
func (x *docIndex) remove(e *entry) {
	if e.ord < len(x.file) && x.file[e.ord] == e {
		x.file[e.ord] = nil
	} else {
		delete(x.m, e.doc.ID)
	}
	x.n--
}

// all yields every live entry with its id, in no set order.
func (x *docIndex) all() iter.Seq2[string, *entry] {
	return func(yield func(string, *entry) bool) {
		for _, e := range x.file {
			if e != nil && !yield(e.doc.ID, e) {
				return
			}
		}
		for id, e := range x.m {
			if !yield(id, e) {
				return
			}
		}
	}
}
