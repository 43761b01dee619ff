package recall

import (
	"math/bits"
	"sync"
)

// lexScratch is one search's scratch of lexicalPostings. It is reused: the
// shard keeps one (shard.lexScratch, not emptied by a garbage collection:
// scratchSlot), a concurrent search takes one from the pool.
//
// The own scores are sparse (issue 14, first use): the ords that have one,
// ascending, beside their scores and masks, found by ord through a bitset
// and the count of set bits before each of its words. The scratch held them
// by ord (scores, masks and candidate marks: 2.5 MB at 100,000 messages,
// written at a query's ~20,000 scattered ords), and the first search of a
// resource paid a fresh page of Go heap for nearly every 4 KiB of it (~610
// pages, ~12 µs of CPU each on the VM of BENCHMARKS.md: 7 of the lexical
// channel's 10.8 ms). Sparse, the same query writes ~20 bytes an ord it
// scores plus 2.5 bits an ord of the shard (BENCHMARKS.md, "the
// lexical scratch sparse").
type lexScratch struct {
	touched []int32   // the ords with an own score (words or dates), ascending
	own     []float64 // own[i] is touched[i]'s own score, lexScoring.own's sum
	mask    []uint64  // nil, or mask[i] the query terms (first 64) touched[i] holds
	masks   []uint64  // mask's memory, kept when mask is nil
	// has marks the touched ords by ord (a bit each), rank[w] the number
	// of touched ords under word w's first; at finds touched's index of an
	// ord from them.
	has  []uint64
	rank []int32
	seen []uint64 // by ord, a bit each: listed as a candidate in this search
	// spare* are the merges' outputs (addOwn), swapped with touched, own
	// and masks.
	spareOrds  []int32
	spareOwn   []float64
	spareMasks []uint64
	adds       []ownAdd   // the scores added by dates and answer types
	lists      [][]uint32 // wordScores's query terms' postings (nil when released)
	heads      []int      // wordScores's position in each of lists
	// win and winMask are wordScores's window of scores and masks by
	// ord, all zero between windows; winDirty is set while a window is
	// summed, and stays set when wordScores stopped inside one (a panic:
	// release zeroes them).
	win      *[ownWindow]float64
	winMask  *[ownWindow]uint64
	winDirty bool
	cands    []lexCand
	dateAt   []int                    // dateOwn's position in each date's ords
	keep     *scratchSlot[lexScratch] // where release returns it first (nil: the pool)
	ords     int                      // the shard's ords when taken
	// zeroing is 1 while release's goroutine zeroes what the last search
	// set; the next taker waits for it.
	zeroing sync.WaitGroup
}

// ownAdd is a score added to an ord's own: d, then t (dates, then answer
// types: lexScoring.own's order).
type ownAdd struct {
	ord  int32
	d, t float64
}

// zeroAsyncMin is the number of scored messages from which release zeroes
// the marks on a goroutine of its own (issue 14), which the search's caller
// (the fusion keeps the scratch to its end, lexScoring.keepOwn) does not
// wait for. A smaller resource's are zeroed in place, as a goroutine would
// cost about as much.
const zeroAsyncMin = 4096

var lexScratchPool = sync.Pool{New: func() any { return new(lexScratch) }}

// getLexScratch returns a scratch for ords ordinals with no own score and
// nothing seen; with masks, the masks are kept (mask non-nil).
func getLexScratch(ords int, masks bool) *lexScratch { return takeLexScratch(nil, ords, masks) }

// takeLexScratch is getLexScratch taking the scratch keep holds first
// (nil, or empty: one from the pool); release gives it back to keep.
func takeLexScratch(keep *scratchSlot[lexScratch], ords int, masks bool) *lexScratch {
	var sc *lexScratch
	if keep != nil {
		sc = keep.take()
	}
	if sc == nil {
		sc = lexScratchPool.Get().(*lexScratch)
	}
	sc.zeroing.Wait() // has and seen all zero again
	sc.keep, sc.ords = keep, ords
	if w := ords/64 + 1; len(sc.has) < w {
		w += w / 4
		sc.has, sc.seen, sc.rank = make([]uint64, w), make([]uint64, w), make([]int32, w)
	}
	sc.mask = nil
	if masks {
		if sc.masks == nil {
			sc.masks = make([]uint64, 0, 256) // non-nil: mask nil means no masks
		}
		sc.mask = sc.masks[:0]
	}
	sc.touched, sc.own, sc.cands = sc.touched[:0], sc.own[:0], sc.cands[:0]
	return sc
}

// words is the number of words of has and seen the scratch's ords use.
func (sc *lexScratch) words() int { return min(sc.ords/64+1, len(sc.has)) }

// index marks touched's ords in has and counts them in rank, once touched
// is complete (ownScores).
func (sc *lexScratch) index() {
	for _, o := range sc.touched {
		sc.has[o>>6] |= 1 << (o & 63)
	}
	n := int32(0)
	for w, b := range sc.has[:sc.words()] {
		sc.rank[w] = n
		n += int32(bits.OnesCount64(b))
	}
}

// at returns touched's index of ord o, or -1 when o has no own score.
func (sc *lexScratch) at(o int32) int {
	w := int(o >> 6)
	if o < 0 || w >= len(sc.has) {
		return -1
	}
	b, bit := sc.has[w], uint64(1)<<(o&63)
	if b&bit == 0 {
		return -1
	}
	return int(sc.rank[w]) + bits.OnesCount64(b&(bit-1))
}

// ownOf returns the own score of ord o (0 for none).
func (sc *lexScratch) ownOf(o int32) float64 {
	if i := sc.at(o); i >= 0 {
		return sc.own[i]
	}
	return 0
}

// maskOf returns the query terms ord o holds (0 for none, or without masks).
func (sc *lexScratch) maskOf(o int32) uint64 {
	if i := sc.at(o); i >= 0 && sc.mask != nil {
		return sc.mask[i]
	}
	return 0
}

// see marks ord o listed and reports whether it was already.
func (sc *lexScratch) see(o int32) bool {
	w, bit := o>>6, uint64(1)<<(o&63)
	if sc.seen[w]&bit != 0 {
		return true
	}
	sc.seen[w] |= bit
	return false
}

// appendOwn appends ord o with own score v and mask m to the own scores.
func (sc *lexScratch) appendOwn(o int32, v float64, m uint64) {
	sc.touched, sc.own = append(sc.touched, o), append(sc.own, v)
	if sc.mask != nil {
		sc.mask = append(sc.mask, m)
	}
}

// addOwn adds sc.adds (ascending by ord) to the own scores, before index:
// an ord's score v becomes v + d + t, summed in that order (0 + d + t for
// an ord without one, listed in its place).
func (sc *lexScratch) addOwn() {
	ords, own, masks := sc.touched, sc.own, sc.mask
	n := len(ords) + len(sc.adds)
	if cap(sc.spareOrds) < n {
		sc.spareOrds, sc.spareOwn = make([]int32, 0, n), make([]float64, 0, n)
	}
	sc.touched, sc.own = sc.spareOrds[:0], sc.spareOwn[:0]
	if masks != nil {
		if cap(sc.spareMasks) < n {
			sc.spareMasks = make([]uint64, 0, n)
		}
		sc.mask = sc.spareMasks[:0]
	}
	i := 0
	for _, a := range sc.adds {
		for ; i < len(ords) && ords[i] < a.ord; i++ {
			sc.appendOwn(ords[i], own[i], maskAt(masks, i))
		}
		var v float64
		var m uint64
		if i < len(ords) && ords[i] == a.ord {
			v, m = own[i], maskAt(masks, i)
			i++
		}
		v += a.d
		v += a.t
		sc.appendOwn(a.ord, v, m)
	}
	for ; i < len(ords); i++ {
		sc.appendOwn(ords[i], own[i], maskAt(masks, i))
	}
	sc.spareOrds, sc.spareOwn = ords[:0], own[:0]
	if masks != nil {
		sc.spareMasks = masks[:0]
	}
}

// reserve makes room in the own scores for as many ords as lists hold
// postings, ords at most, in one allocation rather than growing by append
// (each growth copies, and its new array is fresh pages at a first use:
// only the part written is paid for, as the heap's fresh memory is zero
// already).
func (sc *lexScratch) reserve(lists [][]uint32, ords int) {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	n = min(n, ords)
	if cap(sc.touched) < n {
		sc.touched, sc.own = make([]int32, 0, n), make([]float64, 0, n)
	}
	if sc.mask != nil && cap(sc.mask) < n {
		sc.mask = make([]uint64, 0, n)
	}
}

// maskAt is masks[i], 0 for nil masks.
func maskAt(masks []uint64, i int) uint64 {
	if masks == nil {
		return 0
	}
	return masks[i]
}

// release zeroes the marks the search set (on a goroutine of its own from
// zeroAsyncMin scored messages, which the next taker waits for), and the
// window of wordScores when the search panicked inside one, and returns
// sc to its slot, or to the pool when the slot holds another or sc is too
// large for the shard.
func (sc *lexScratch) release() {
	if sc.mask != nil {
		sc.masks = sc.mask[:0]
	}
	clear(sc.lists[:cap(sc.lists)])
	if sc.winDirty {
		// A panic inside a window (a snapshot changed under its mapping:
		// a fault or a read out of range, which Search recovers): the
		// next search sums from zero.
		clear(sc.win[:])
		clear(sc.winMask[:])
		sc.winDirty = false
	}
	if len(sc.touched) >= zeroAsyncMin {
		sc.zeroing.Add(1)
		go func() {
			defer sc.zeroing.Done()
			sc.zero()
		}()
	} else {
		sc.zero()
	}
	keep := sc.keep
	sc.keep = nil
	if keep != nil && keepsScratch(64*len(sc.has), sc.ords) && keep.give(sc) {
		return
	}
	lexScratchPool.Put(sc)
}

// zero clears has and seen: 2 bits an ord (16 KB at 100,000 ords).
func (sc *lexScratch) zero() {
	w := sc.words()
	clear(sc.has[:w])
	clear(sc.seen[:w])
}
