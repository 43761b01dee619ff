package recall

import (
	"strings"
	"sync"
	"sync/atomic"
)

// qmarks remembers, per entry of a shard (by ord), whether its content
// holds a "?" (the exchange rule's question, AnswersQuestion) once a
// search has looked (issue 14). The rule asks it of the turn before
// several hundred candidates a LoadContext; at 100k messages those
// contents lie at random places of the snapshot's mapping, and scanning
// them (a TLB miss and cache misses each, page faults while the mapping is
// new) was 0.1–0.25 ms a call, against 0.04 at 10k/10 (BENCHMARKS.md,
// helper "flat5"). Two bits an ord: known, and the answer.
//
// Searches (holding the shard's read lock) fill it concurrently, with
// atomic ORs; a bit lost to a concurrent growth is only looked up again.
// A change of an entry's content (putDoc, removeDoc: the write lock)
// forgets the entry; reset and unload drop everything. The zero qmarks is
// empty and usable.
type qmarks struct {
	mu sync.Mutex // serialises growth
	w  atomic.Pointer[[]atomic.Uint32]
}

// hasQuestion reports whether e's content holds a "?" (caller holds the
// shard's lock; n is the shard's ords, to size the marks).
func (m *qmarks) hasQuestion(e *entry, n int) bool {
	w := m.word(e.ord, n)
	if w == nil {
		return strings.Contains(e.doc.Content, "?")
	}
	sh := uint(e.ord%16) * 2
	if v := w.Load() >> sh; v&1 != 0 {
		return v&2 != 0
	}
	has := strings.Contains(e.doc.Content, "?")
	bits := uint32(1)
	if has {
		bits |= 2
	}
	w.Or(bits << sh)
	return has
}

// word returns the word holding ord o's bits, growing the marks to n
// ords (and some) when o lies past them; nil when o ≥ n.
func (m *qmarks) word(o, n int) *atomic.Uint32 {
	if ws := m.w.Load(); ws != nil && o/16 < len(*ws) {
		return &(*ws)[o/16]
	}
	if o >= n {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.w.Load()
	if old != nil && o/16 < len(*old) {
		return &(*old)[o/16]
	}
	grown := make([]atomic.Uint32, (n+n/4+64)/16+1)
	if old != nil {
		for i := range *old {
			grown[i].Store((*old)[i].Load())
		}
	}
	m.w.Store(&grown)
	return &grown[o/16]
}

// forget clears ord o's bits (caller holds the shard's write lock: its
// content changed).
func (m *qmarks) forget(o int) {
	if ws := m.w.Load(); ws != nil && o/16 < len(*ws) {
		(*ws)[o/16].And(^(uint32(3) << (uint(o%16) * 2)))
	}
}

// drop forgets every entry (caller holds the shard's write lock).
func (m *qmarks) drop() { m.w.Store(nil) }
