package recall

import (
	"math"
	"slices"
	"time"
	"unsafe"
)

// postings is a shard's in-memory inverted index, which the lexical
// channel scores from (lexicalPostings): for each term id of the shard's
// bm25Stats, the entries holding the term, by ascending ord, each with the
// term's frequency in it. Before it, a resource of more than 4,000
// messages went to bleve for a pool of candidates ranked by bleve's own
// BM25 (every posting of the query words walked and scored, ~2 ms of CPU
// a search at 100k messages in one resource) and a filter that removed
// candidates widened that to every match (57–81 ms); see BENCHMARKS.md.
//
// It is kept up to date with the shard's entries (putDoc, removeDoc):
// removing a message removes its ord from every list of its terms.
type postings struct {
	// lists[t] holds ord<<tfBits | min(tf, tfMax) for each entry holding
	// term t, ascending; tfMax means "count again from entry.terms".
	lists [][]uint32
	byOrd []*entry // by ord; nil once removed
	lens  []int32  // by ord: len(entry.terms), BM25's document length
	// prev and next hold by ord the ords of entry.prev and entry.next (-1
	// for none): the turn-context rule reads them for tens of thousands
	// of candidates a search, where following the entries' pointers cost
	// a cache miss each.
	prev, next []int32
	// when and month hold by ord the message's creation time (Unix
	// nanoseconds; noWhen outside 1700–2200, read from the entry then)
	// and month in loc (0 once removed): a query naming a date finds its
	// messages in them (periodTF) instead of visiting every entry.
	when  []int64
	month []uint8
	loc   *time.Location // the shard's zone (nil: UTC)
	// ref holds by ord entry.ref, the period the message's relative date
	// points to (periodTF counts it too).
	ref []dayRange
	// overflow is set when an ord does not fit beside the frequency (more
	// than 2^28 entries put since the load): the channel then asks bleve.
	overflow bool
}

const (
	tfBits = 4
	tfMax  = 1<<tfBits - 1
	maxOrd = 1<<(32-tfBits) - 1
)

// add indexes e, a new entry or one whose terms were replaced (after
// remove) under the same ord.
func (p *postings) add(e *entry) {
	if !p.place(e) {
		return
	}
	termFreqs(e.terms, func(t uint32, tf int) {
		for int(t) >= len(p.lists) {
			p.lists = append(p.lists, nil)
		}
		v := uint32(e.ord)<<tfBits | uint32(min(tf, tfMax))
		l := p.lists[t]
		if n := len(l); n == 0 || l[n-1]>>tfBits < uint32(e.ord) {
			p.lists[t] = append(l, v)
			return
		}
		i, _ := slices.BinarySearch(l, uint32(e.ord)<<tfBits)
		p.lists[t] = slices.Insert(l, i, v)
	})
}

// place records e's ord, length, neighbours and time, but not its terms'
// lists (a snapshot's load reads those: snapshot_read.go); false when the
// ord overflows.
func (p *postings) place(e *entry) bool {
	if e.ord > maxOrd {
		p.overflow = true
		return false
	}
	for len(p.byOrd) <= e.ord {
		p.byOrd = append(p.byOrd, nil)
		p.lens = append(p.lens, 0)
		p.prev, p.next = append(p.prev, -1), append(p.next, -1)
		p.when, p.month = append(p.when, noWhen), append(p.month, 0)
		p.ref = append(p.ref, dayRange{})
	}
	p.byOrd[e.ord], p.lens[e.ord] = e, int32(len(e.terms))
	p.prev[e.ord], p.next[e.ord] = ordOf(e.prev), ordOf(e.next)
	p.when[e.ord], p.month[e.ord] = noWhen, uint8(e.doc.CreatedAt.In(zone(p.loc)).Month())
	p.ref[e.ord] = e.ref
	if y := e.doc.CreatedAt.Year(); y >= 1700 && y <= 2200 {
		p.when[e.ord] = e.doc.CreatedAt.UnixNano()
	}
	return true
}

// reserve makes room for n ords in the per-ord arrays (a snapshot's load
// knows how many it places: its arrays are made in off).
func (p *postings) reserve(n int, off *offHeap) {
	if len(p.lens) == 0 && n > 0 { // a load (byOrd may be readIDs' already)
		if cap(p.byOrd) < n {
			p.byOrd = make([]*entry, 0, n)
		}
		p.carve(n, off)
		return
	}
	p.byOrd = slices.Grow(p.byOrd, n)
	p.lens = slices.Grow(p.lens, n)
	p.prev, p.next = slices.Grow(p.prev, n), slices.Grow(p.next, n)
	p.when, p.month = slices.Grow(p.when, n), slices.Grow(p.month, n)
	p.ref = slices.Grow(p.ref, n)
}

// carve makes the empty pointer-free per-ord arrays with room for n ords
// each, cut from one block of off in huge pages (offMake): at 100,000 messages
// they are 2.9 MB, ~700 first touches of 4 KiB pages apart. Each has
// capacity n, so an append past it moves that array out of the block.
func (p *postings) carve(n int, off *offHeap) {
	words := func(bytes int) int { return (bytes + 7) / 8 }
	ref := int(unsafe.Sizeof(dayRange{}))
	block := offMake[uint64](off, words(8*n)+words(ref*n)+3*words(4*n)+words(n), 0)
	at := 0 // in words; never a pointer past the block (checkptr refuses one)
	next := func(bytes int) unsafe.Pointer {
		q := unsafe.Pointer(&block[at])
		at += words(bytes)
		return q
	}
	p.when = unsafe.Slice((*int64)(next(8*n)), n)[:0]
	p.ref = unsafe.Slice((*dayRange)(next(ref*n)), n)[:0]
	p.lens = unsafe.Slice((*int32)(next(4*n)), n)[:0]
	p.prev = unsafe.Slice((*int32)(next(4*n)), n)[:0]
	p.next = unsafe.Slice((*int32)(next(4*n)), n)[:0]
	p.month = unsafe.Slice((*uint8)(next(n)), n)[:0]
}

// remove drops e's ord from the lists of its terms (e.terms as they were
// added).
func (p *postings) remove(e *entry) {
	if e.ord >= len(p.byOrd) || p.byOrd[e.ord] != e {
		return
	}
	termFreqs(e.terms, func(t uint32, _ int) {
		if int(t) >= len(p.lists) {
			return
		}
		l := p.lists[t]
		i, _ := slices.BinarySearch(l, uint32(e.ord)<<tfBits)
		if i < len(l) && l[i]>>tfBits == uint32(e.ord) {
			p.lists[t] = slices.Delete(l, i, i+1)
		}
	})
	p.byOrd[e.ord], p.lens[e.ord] = nil, 0
	p.prev[e.ord], p.next[e.ord] = -1, -1
	p.when[e.ord], p.month[e.ord] = noWhen, 0
	p.ref[e.ord] = dayRange{}
}

// noWhen marks a creation time that is not kept as Unix nanoseconds.
const noWhen = math.MinInt64

// periodTF is how many times the live entry of ord o carries dp: once if
// it was created in it (datePeriod.contains), once more if its relative
// date overlaps it.
func (p *postings) periodTF(o int, dp datePeriod) int {
	tf := 0
	if p.ref[o].overlaps(dp) {
		tf = 1
	}
	if p.createdIn(o, dp) {
		tf++
	}
	return tf
}

// createdIn reports whether the live entry of ord o was created in dp.
func (p *postings) createdIn(o int, dp datePeriod) bool {
	if dp.from.IsZero() {
		return p.month[o] == uint8(dp.month)
	}
	w := p.when[o]
	if w == noWhen {
		return dp.contains(p.byOrd[o].doc.CreatedAt)
	}
	return w >= dp.from.UnixNano() && w < dp.to.UnixNano()
}

// link records the thread neighbours of each of es (nil ones skipped)
// after they changed.
func (p *postings) link(es ...*entry) {
	for _, e := range es {
		if e == nil || e.ord >= len(p.byOrd) || p.byOrd[e.ord] != e {
			continue
		}
		p.prev[e.ord], p.next[e.ord] = ordOf(e.prev), ordOf(e.next)
	}
}

func ordOf(e *entry) int32 {
	if e == nil {
		return -1
	}
	return int32(e.ord)
}

// tf returns the frequency of term t in the entry of ord, from its posting
// value v.
func (p *postings) tf(v uint32, t uint32) int {
	if tf := int(v & tfMax); tf < tfMax {
		return tf
	}
	n := 0
	for _, x := range p.byOrd[v>>tfBits].terms {
		if x == t {
			n++
		}
	}
	return n
}

// termFreqs calls fn with each distinct term of terms (first-seen order)
// and its count.
func termFreqs(terms []uint32, fn func(t uint32, tf int)) {
	if len(terms) > 64 {
		counts := make(map[uint32]int, len(terms))
		for _, t := range terms {
			counts[t]++
		}
		for _, t := range terms {
			if n, ok := counts[t]; ok {
				fn(t, n)
				delete(counts, t)
			}
		}
		return
	}
	for i, t := range terms {
		if slices.Contains(terms[:i], t) {
			continue
		}
		n := 1
		for _, x := range terms[i+1:] {
			if x == t {
				n++
			}
		}
		fn(t, n)
	}
}
