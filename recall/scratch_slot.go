package recall

import "sync/atomic"

// scratchSlot keeps one search scratch of its owner (a shard's lexical
// scratch, a vector index's) for the owner's next search (issue 14).
//
// The scratches sized by a shard (the lexical channel's 2.2 MB at 100k
// messages, the first pass's 400 KB of dots) used to live in sync.Pools
// only, which the garbage collector empties within two cycles: the bench's
// 100 calls at 100k/1 ran two collections and allocated a new lexical
// scratch 2–3 times, each one fresh pages (~600 minor faults, 39–66 µs
// each on the VM of BENCHMARKS.md) and 2.2 MB cleared. The slot is not
// cleared by a collection; a search running while another holds the
// slot's scratch falls back to the pool.
//
// The zero scratchSlot is empty and usable.
type scratchSlot[T any] struct{ p atomic.Pointer[T] }

// take returns the kept scratch and empties the slot, nil when empty
// (another search holds it, or none was kept yet).
func (s *scratchSlot[T]) take() *T { return s.p.Swap(nil) }

// give keeps v for the next take and reports whether the slot took it
// (false: it already holds one).
func (s *scratchSlot[T]) give(v *T) bool { return s.p.CompareAndSwap(nil, v) }

// drop empties the slot (the owner is being freed).
func (s *scratchSlot[T]) drop() { s.p.Store(nil) }

// keepsScratch reports whether a scratch of size entries is small enough
// to be kept for an owner of n entries (a pool scratch grown by a larger
// shard goes back to the pool rather than sit in a small one).
func keepsScratch(size, n int) bool { return size <= 2*n+1024 }
