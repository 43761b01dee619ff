package recall

import "unsafe"

// arena holds the contents and analysed term ids of a shard's messages in
// slabs outside the Go heap (slab.go), for the same reason as the vectors:
// the garbage collector sizes the heap at twice what it finds live, so the
// ~30 MB of text and term ids of 100,000 messages cost twice that on the
// heap. Values are appended and never moved; removing or replacing a
// message zeroes its bytes in place (no copy of an erased message stays in
// memory), and the space is reclaimed when the shard unloads.
//
// Values up to arenaMax are appended to chunks of arenaChunk bytes; larger
// ones (a long message's content and its term ids) to chunks of
// arenaBigChunk bytes, or a slab of their own past that. Before, a large
// value stayed on the heap: a resource of 600 messages of 200 KB loaded
// from its rows kept its 120 MB of text and its term ids there, and the
// collector's goal of twice the live heap made the load peak at 515-531 MB
// of resident memory, 307-342 MB since (BENCHMARKS.md "A long resource's
// first load from its rows"). A chunk's pages take resident memory only
// when written, so the unused end of a chunk costs address space only.
//
// Strings and slices handed out point into the slabs: they are read only
// under the shard's lock, which free also takes (an entry never outlives
// its shard's state).
type arena struct {
	chunks []*slab // every slab: the small and large values' chunks and adopted slabs
	cur    *slab   // the chunk values up to arenaMax are appended to
	used   int     // bytes used in cur
	big    *slab   // the chunk larger values are appended to
	bigUse int     // bytes used in big
}

const (
	arenaChunk = 1 << 20
	arenaMax   = arenaChunk / 16
	// arenaBigChunk is the size of the chunks of values over arenaMax; a
	// value larger than it gets a slab of its own.
	arenaBigChunk = 16 << 20
)

// take returns n bytes of the arena, 4-byte aligned, or nil when n is 0.
func (a *arena) take(n int) []byte {
	if n == 0 {
		return nil
	}
	m := (n + 3) &^ 3
	if n > arenaMax {
		return a.takeBig(n, m)
	}
	if a.cur == nil || a.used+m > arenaChunk {
		a.cur = newSlab(arenaChunk, a)
		a.chunks = append(a.chunks, a.cur)
		a.used = 0
	}
	b := a.cur.mem[a.used : a.used+n : a.used+n]
	a.used += m
	return b
}

// takeBig is take for a value of n bytes over arenaMax (m: n rounded up
// to a multiple of 4).
func (a *arena) takeBig(n, m int) []byte {
	if m > arenaBigChunk {
		sl := newSlab(m, a)
		a.chunks = append(a.chunks, sl)
		return sl.mem[:n:n]
	}
	if a.big == nil || a.bigUse+m > arenaBigChunk {
		a.big = newSlab(arenaBigChunk, a)
		a.chunks = append(a.chunks, a.big)
		a.bigUse = 0
	}
	b := a.big.mem[a.bigUse : a.bigUse+n : a.bigUse+n]
	a.bigUse += m
	return b
}

// string returns s copied into the arena.
func (a *arena) string(s string) string {
	b := a.take(len(s))
	if b == nil {
		return s
	}
	copy(b, s)
	return unsafe.String(&b[0], len(s))
}

// uint32s returns v copied into the arena.
func (a *arena) uint32s(v []uint32) []uint32 {
	b := a.take(4 * len(v))
	if b == nil {
		return v
	}
	out := unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(v))
	copy(out, v)
	return out
}

// erase zeroes the n bytes at p when they lie in one of the arena's slabs.
func (a *arena) erase(p unsafe.Pointer, n int) {
	if a == nil || n == 0 {
		return
	}
	for _, c := range a.chunks {
		if len(c.mem) == 0 {
			continue
		}
		lo := uintptr(unsafe.Pointer(&c.mem[0]))
		if at := uintptr(p); at >= lo && at+uintptr(n) <= lo+uintptr(len(c.mem)) {
			clear(unsafe.Slice((*byte)(p), n))
			return
		}
	}
}

// eraseEntry zeroes e's content and term ids in the arena.
func (a *arena) eraseEntry(e *entry) {
	if c := e.doc.Content; c != "" {
		a.erase(unsafe.Pointer(unsafe.StringData(c)), len(c))
	}
	if len(e.terms) > 0 {
		a.erase(unsafe.Pointer(&e.terms[0]), 4*len(e.terms))
	}
}

// adopt makes sl (a mapped snapshot's messages part, whose contents and
// term ids the shard's entries point into) one of the arena's slabs:
// erased with them, released with them. Nothing is appended to it.
func (a *arena) adopt(sl *slab) {
	a.chunks = append(a.chunks, sl)
}

// free releases the slabs.
func (a *arena) free() {
	if a == nil {
		return
	}
	for _, c := range a.chunks {
		c.free()
	}
	*a = arena{}
}
