package recall

import (
	"encoding/json"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Entries decoded on demand (issue 14). Making the entry of each of a
// snapshot's 100,000 messages (~208 bytes each: its doc, slot, terms) was
// ~14 ms of the first search's wall time, though the search reads a few
// hundred of them. The load now checks the messages' columns (seq order,
// roles, slots, counts: every check a bad snapshot can fail,
// snapshot_entries.go) and leaves the entries zero, in pages not touched;
// an entry is made the first time it is reached — by ord (postings.at,
// docIndex.get), by vector slot (vecIndex.at) — and a thread's all at once
// when it is reached as a thread (shard.thread, which also links their
// prev and next). Until then its elements of the arrays of entries
// (postings.byOrd, docIndex.file, vecIndex.ents, the threads') are nil and
// read by no one: every read goes through those functions, or after
// ensureAll for a pass over all. The searches read an entry's neighbours
// by ord (postings.before, after), not by its prev and next, which only
// the writes use.
//
// Searches make entries concurrently under the shard's read lock: mu
// serialises the making, and an entry's made flag, set after it and its
// array elements are written, is what a reader checks first. Every write
// of the shard (putDoc, removeDoc, putVector, dropThread, the snapshot
// writer) makes and links all entries first (ensureAll), so that only
// reads ever meet an unmade entry, and while some entry is unmade no
// message of the snapshot has been changed: the columns are still the
// truth (live, typesOf, lastSeq, shard.neighbours read them).

// lazyEntries is the part of a snapshot load not made yet.
type lazyEntries struct {
	mu     sync.Mutex
	er     *entryReader
	spans  []span
	span   map[string]int // by thread id
	made   []atomic.Bool  // by ord
	linked []atomic.Bool  // by span: every entry made, prev and next set
	all    atomic.Bool    // every span linked (ensureAll)
	// used counts the entries of er.all made so far: they are taken in
	// the order they are made, not by ord, so that the few hundred a
	// search makes lie in one huge page (offMake), where by ord they lay
	// in all of its ~10 and the first search zeroed 20 MB in faults.
	used int
	// slotOrd holds by vector slot − 1 the ord of its entry, as read.
	slotOrd []int32
}

// pending reports whether some entry may be unmade (nil-safe).
func (lz *lazyEntries) pending() bool { return lz != nil && !lz.all.Load() }

// ensureOrd makes the entry of ord o unless it is made (o past the
// snapshot's ords: nothing to make).
func (lz *lazyEntries) ensureOrd(o int) {
	if !lz.pending() || o < 0 || o >= len(lz.made) || lz.made[o].Load() {
		return
	}
	lz.mu.Lock()
	defer lz.mu.Unlock()
	lz.make(o, lz.spanOf(o))
}

// ensureSlot makes the entry of vector slot i (0-based).
func (lz *lazyEntries) ensureSlot(i int) {
	if !lz.pending() || i >= len(lz.slotOrd) {
		return
	}
	lz.ensureOrd(int(lz.slotOrd[i]))
}

// ensureThread makes and links the entries of thread id unless it is not
// the snapshot's.
func (lz *lazyEntries) ensureThread(id string) {
	if !lz.pending() {
		return
	}
	if i, ok := lz.span[id]; ok && !lz.linked[i].Load() {
		lz.mu.Lock()
		defer lz.mu.Unlock()
		lz.link(i)
	}
}

// ensureAll makes and links every entry.
func (lz *lazyEntries) ensureAll() {
	if !lz.pending() {
		return
	}
	lz.mu.Lock()
	defer lz.mu.Unlock()
	for i := range lz.spans {
		lz.link(i)
	}
	lz.all.Store(true)
}

// spanOf returns the span of ord o.
func (lz *lazyEntries) spanOf(o int) int {
	return sort.Search(len(lz.spans), func(i int) bool { return lz.spans[i].start > o }) - 1
}

// make makes the entry of ord o, of span i, unless it is made (caller
// holds mu).
func (lz *lazyEntries) make(o, i int) {
	if lz.made[o].Load() {
		return
	}
	er, sp := lz.er, lz.spans[i]
	s := er.s
	e := &er.all[lz.used]
	lz.used++
	er.fill(e, o, sp.id)
	s.post.byOrd[o], s.docs.file[o] = e, e
	if th := s.threads[sp.id]; len(th) == sp.n {
		th[o-sp.start] = e
	}
	if e.vslot > 0 && s.vx != nil {
		s.vx.ents[e.vslot-1] = e
	}
	lz.made[o].Store(true)
}

// link makes the entries of span i and sets their prev and next, unless
// done (caller holds mu).
func (lz *lazyEntries) link(i int) {
	if lz.linked[i].Load() {
		return
	}
	sp := lz.spans[i]
	by := lz.er.s.post.byOrd
	var prev *entry
	for o := sp.start; o < sp.start+sp.n; o++ {
		lz.make(o, i)
		if e := by[o]; prev != nil {
			e.prev, prev.next = prev, e
		}
		prev = by[o]
	}
	lz.linked[i].Store(true)
}

// makeBehind has the check of a loaded snapshot's vector part make the
// entries no search made yet once it passed (shard.makeRest; a variable
// for the tests).
var makeBehind = true

// makeRest makes and links, a few threads at a time under the read lock,
// the entries of s's snapshot load that are not made yet, until all are
// or done is closed (Close) or the shard is loaded again. Made on demand
// only, the entries a LoadContext reads were mostly made by it through
// the first hundred warm calls at 100,000 messages (~0.4 ms of their ~5
// ms of CPU, issue 14); made behind, on the other core, after the first
// search, the warm calls find them made.
func (s *shard) makeRest(done <-chan struct{}) {
	if !makeBehind {
		return
	}
	s.mu.RLock()
	lz := s.lz
	s.mu.RUnlock()
	for i := 0; lz.pending(); {
		select {
		case <-done:
			return
		default:
		}
		s.mu.RLock()
		if !s.loaded || s.lz != lz {
			s.mu.RUnlock()
			return
		}
		lz.mu.Lock()
		for end := min(i+makeChunk, len(lz.spans)); i < end; i++ {
			lz.link(i)
		}
		if i == len(lz.spans) {
			lz.all.Store(true)
		}
		lz.mu.Unlock()
		s.mu.RUnlock()
	}
}

// makeChunk is the number of threads makeRest makes and links under one
// hold of the locks (~100 messages a thread, ~50 µs).
const makeChunk = 8

// thread returns the span of thread id while the columns are the truth
// (no write since the load), else false.
func (lz *lazyEntries) thread(id string) (span, bool) {
	if !lz.pending() {
		return span{}, false
	}
	i, ok := lz.span[id]
	if !ok {
		return span{}, false
	}
	return lz.spans[i], true
}

// lastSeq returns the seq of thread id's last message while the columns
// are the truth, else false (the caller reads its entries).
func (lz *lazyEntries) lastSeq(id string) (int64, bool) {
	sp, ok := lz.thread(id)
	if !ok {
		return 0, false
	}
	return lz.er.c.recs[sp.start+sp.n-1].seq, true
}

// fill makes e, the entry of message o of thread, from the columns checked
// at load (entryReader.check).
func (er *entryReader) fill(e *entry, o int, thread string) {
	s, c := er.s, er.c
	m, p := &c.recs[o], &s.post
	d := &e.doc
	d.ID, d.ThreadID, d.ResourceID = s.docs.fileID(uint32(o)), thread, s.resource
	content, md, terms := c.fields(o)
	d.Seq, d.Role, d.Name, d.Content = m.seq, c.names[m.role], c.names[m.name], content
	if len(md) > 0 {
		// Checked a JSON object at load; a number out of float64's range
		// (only in a file made so, under good sums) leaves it out.
		if json.Unmarshal(md, &d.Metadata) != nil {
			d.Metadata = nil
		} else {
			s.off.hold(d.Metadata) // e lies off the heap (offheap.go)
		}
	}
	d.CreatedAt = time.Unix(m.sec, int64(m.nsec)).UTC()
	e.vslot, e.atypes, e.ref = int(m.vslot)+1, m.atypes, p.ref[o]
	e.terms = terms
	e.ord = o
}

// Reads through the lazy entries (nil-safe: a shard built from the Source
// has none).

// at returns the entry of ord o, nil once removed.
func (p *postings) at(o int) *entry {
	p.lz.ensureOrd(o)
	return p.byOrd[o]
}

// typesOf returns the answer types of ord o's message and whether it is
// in the shard, without making its entry.
func (p *postings) typesOf(o int) (uint8, bool) {
	if p.lz.pending() && o < len(p.lz.made) {
		return p.lz.er.c.recs[o].atypes, true
	}
	if e := p.byOrd[o]; e != nil {
		return e.atypes, true
	}
	return 0, false
}

// live reports whether ord o's message is in the shard, without making
// its entry: while some entry is unmade, none has been removed.
func (p *postings) live(o int) bool {
	if p.lz.pending() && o < len(p.lz.made) {
		return true
	}
	return p.byOrd[o] != nil
}

// at returns the entry of vector slot i (0-based).
func (x *vecIndex) at(i int) *entry {
	x.lz.ensureSlot(i)
	return x.ents[i]
}

// peek returns the entry of vector slot i (0-based) if it is made, else
// nil: a read ahead that must not make it (touchRows).
func (x *vecIndex) peek(i int) *entry {
	if lz := x.lz; lz.pending() && i < len(lz.slotOrd) && !lz.made[lz.slotOrd[i]].Load() {
		return nil
	}
	return x.ents[i]
}

// thread returns the entries of thread id by seq, made.
func (s *shard) thread(id string) []*entry {
	s.lz.ensureThread(id)
	return s.threads[id]
}

// ensureAll makes every entry of s (before a write, or a pass over all).
func (s *shard) ensureAll() { s.lz.ensureAll() }

// before returns the message before e in its thread, nil for none (its
// entry made: the searches read the neighbours by ord).
func (p *postings) before(e *entry) *entry {
	if e == nil {
		return nil
	}
	if e.ord >= len(p.prev) {
		return e.prev // an ord past maxOrd (postings.place)
	}
	if o := p.prev[e.ord]; o >= 0 {
		return p.at(int(o))
	}
	return nil
}

// after returns the message after e in its thread, nil for none, as
// before.
func (p *postings) after(e *entry) *entry {
	if e == nil {
		return nil
	}
	if e.ord >= len(p.next) {
		return e.next
	}
	if o := p.next[e.ord]; o >= 0 {
		return p.at(int(o))
	}
	return nil
}
