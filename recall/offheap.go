package recall

import "unsafe"

// offHeap holds the large arrays a shard's snapshot load fills (the
// entries, the postings' neighbours by ord; since format 9 the threads'
// vector sums and the other per-ord arrays lie in the mapped snapshot) in
// memory outside the Go heap (allocSlab), freed with the shard (unload,
// reset).
//
// Why (issue 14, BENCHMARKS.md "First use: the entries off the Go heap"):
// after engine.Open the live heap is ~1 MB, and a 100,000-message load put
// ~45 MB on it at once (20 MB of them the entries, which hold pointers), so
// a collection ran through the load and scanned every entry, with mark
// assists slowing the load itself: ~90 ms of CPU of a first use. Off the
// heap, the load does not grow the heap's goal and no collection scans the
// entries, ever.
//
// The collector does not see what lies in these arrays, so whatever heap
// object an entry there points to must be kept alive by the shard
// otherwise: keep holds them (the thread names, the roles and names, the
// metadata maps read from the file, and the Docs put over a file entry
// later: shard.putDoc). Pointers to other entries (prev, next), into the
// snapshot's mapping (ids, contents, term ids) or to entries put after the
// load (kept by docIndex's map and the threads) need nothing. Nothing may
// keep a pointer into these arrays past the shard's lock (as for the
// contents in the mapping: a hit copies what it returns).
//
// The zero offHeap is empty and usable.
type offHeap struct {
	blocks [][]byte
	keep   []any
	// kept holds, per off-heap entry, the last Doc put over it (putDoc),
	// so that updating a loaded message again replaces its hold instead of
	// adding one.
	kept map[unsafe.Pointer]any
}

// offHeapMin is the smallest array offMake puts off the heap (a variable
// for the tests).
var offHeapMin uintptr = hugePage

// offMake returns a slice of length n and capacity max(n, c) of zeroed
// Ts outside the Go heap, advised for huge pages (hugeHint). Small arrays
// (under offHeapMin bytes) are made on the heap, as T's pointers need
// nothing kept there either.
func offMake[T any](o *offHeap, n, c int) []T {
	c = max(n, c)
	var z T
	size := unsafe.Sizeof(z)
	if size == 0 || c == 0 || uintptr(c)*size < offHeapMin {
		return make([]T, n, c)
	}
	// Whole huge pages from a huge page boundary: one more of address
	// space (never touched) to align to.
	bytes := alignUp(uintptr(c)*size, hugePage)
	b := allocSlab(int(bytes + hugePage))
	o.blocks = append(o.blocks, b)
	base := unsafe.Pointer(unsafe.SliceData(b))
	p := unsafe.Add(base, alignUp(uintptr(base), hugePage)-uintptr(base))
	hugeHint(p, bytes)
	return unsafe.Slice((*T)(p), c)[:n]
}

// hold keeps v (a heap object an off-heap array points to) alive until
// free.
func (o *offHeap) hold(v any) { o.keep = append(o.keep, v) }

// holdFor keeps v alive until free as what the off-heap object at p
// points to, in place of what an earlier holdFor for p kept.
func (o *offHeap) holdFor(p unsafe.Pointer, v any) {
	if o.kept == nil {
		o.kept = map[unsafe.Pointer]any{}
	}
	o.kept[p] = v
}

// owns reports whether p lies in one of o's blocks.
func (o *offHeap) owns(p unsafe.Pointer) bool {
	for _, b := range o.blocks {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if uintptr(p) >= lo && uintptr(p) < lo+uintptr(len(b)) {
			return true
		}
	}
	return false
}

// free releases the blocks; nothing may use them afterwards.
func (o *offHeap) free() {
	for _, b := range o.blocks {
		freeSlab(b)
	}
	*o = offHeap{}
}
