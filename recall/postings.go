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
	// term t, ascending; tfMax means "count again from entry.terms". Read
	// them through list and terms: a shard loaded from a snapshot has
	// none until its first write (own).
	lists [][]uint32
	// file and offs are a loaded snapshot's lists as they lie in its
	// mapping (format 11): list t is file[offs[t]:offs[t+1]]. Making the
	// 32,036 slices of a 100k shard's lists at load was 768 KB of fresh
	// heap, ~190 page faults of a first use (issue 14); a query reads a
	// few lists.
	file, offs []uint32

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

// terms returns the number of term ids that have a list (maybe empty).
func (p *postings) terms() int {
	if p.offs != nil {
		return len(p.offs) - 1
	}
	return len(p.lists)
}

// list returns term t's list (t below terms()), nil for none.
func (p *postings) list(t uint32) []uint32 {
	if p.offs == nil {
		return p.lists[t]
	}
	a, b := p.offs[t], p.offs[t+1]
	if a == b {
		return nil
	}
	return p.file[a:b:b]
}

// own makes the lists of a loaded snapshot's before a write changes one
// (they stay in place in the mapping; a list that grows is copied).
func (p *postings) own() {
	if p.offs == nil {
		return
	}
	lists := make([][]uint32, len(p.offs)-1)
	for t := range lists {
		lists[t] = p.list(uint32(t))
	}
	p.lists, p.file, p.offs = lists, nil, nil
}

// add indexes e, a new entry or one whose terms were replaced (after
// remove) under the same ord.
func (p *postings) add(e *entry) {
	if !p.place(e) {
		return
	}
	p.own()
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
	p.when[e.ord], p.month[e.ord] = ordTime(e, p.loc)
	p.ref[e.ord] = e.ref
	return true
}

// ordTime returns what the per-ord arrays hold of e's creation time: Unix
// nanoseconds (noWhen outside 1700–2200) and its month in loc (nil: UTC).
func ordTime(e *entry, loc *time.Location) (int64, uint8) {
	when := int64(noWhen)
	if y := e.doc.CreatedAt.Year(); y >= 1700 && y <= 2200 {
		when = e.doc.CreatedAt.UnixNano()
	}
	return when, uint8(e.doc.CreatedAt.In(zone(loc)).Month())
}

// links makes the load's arrays of the entries and their neighbours by
// ord, n each (byOrd may be readIDs' block already); the neighbours' are
// cut from one block of off, a whole huge page at least from 256 KiB
// (offMake: at 100,000 messages the 800 KB made on the heap cost ~6 ms
// of a first use in page faults). The other per-ord arrays lie in the
// snapshot (readOrdArrays).
func (p *postings) links(n int, off *offHeap) {
	if cap(p.byOrd) < n {
		p.byOrd = make([]*entry, 0, n)
	}
	p.byOrd = p.byOrd[:n:n]
	c := 2 * n
	if 4*c >= hugePage/8 {
		c = max(c, hugePage/4)
	}
	b := offMake[int32](off, 2*n, c)
	p.prev, p.next = b[:n:n], b[n:2*n:2*n]
}

// remove drops e's ord from the lists of its terms (e.terms as they were
// added).
func (p *postings) remove(e *entry) {
	if e.ord >= len(p.byOrd) || p.byOrd[e.ord] != e {
		return
	}
	p.own()
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

// periodOrds appends to out the ords o of the live entries with
// periodTF(o, dp) > 0, ascending: periodTF's tests, with dp's bounds taken
// once rather than for every ord, and an entry read only when its ord
// carries dp or its creation time is not in the array (a query naming a
// date scanned the 100,000 ords of a large resource twice, at ~15 ns an
// ord; BENCHMARKS.md). A removed ord carries nothing (remove).
func (p *postings) periodOrds(dp datePeriod, out []int32) []int32 {
	n := len(p.byOrd)
	byOrd, when, months, refs := p.byOrd[:n], p.when[:n], p.month[:n], p.ref[:n]
	byMonth := dp.from.IsZero()
	var from, to int64
	if !byMonth {
		from, to = dp.from.UnixNano(), dp.to.UnixNano()
	}
	month := uint8(dp.month)
	for o := range n {
		var in bool
		switch w := when[o]; {
		case byMonth:
			in = months[o] == month
		case w == noWhen:
			e := byOrd[o]
			in = e != nil && dp.contains(e.doc.CreatedAt)
		default:
			in = w >= from && w < to
		}
		if !in && refs[o].n != 0 {
			in = refs[o].overlaps(dp)
		}
		if in && byOrd[o] != nil {
			out = append(out, int32(o))
		}
	}
	return out
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
// value v (counted again in the entry's term ids when saturated, their
// blocks verified by sums first: snapshot_blocks.go).
func (p *postings) tf(v uint32, t uint32, sums *blockSums) int {
	if tf := int(v & tfMax); tf < tfMax {
		return tf
	}
	n := 0
	e := p.byOrd[v>>tfBits]
	if len(e.terms) > 0 {
		sums.check(unsafe.Pointer(&e.terms[0]), 4*len(e.terms))
	}
	for _, x := range e.terms {
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
