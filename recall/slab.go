package recall

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// slab is one fixed-size block of memory for vector data (int8 codes and
// float32 vectors, which hold no Go pointers), taken outside the Go heap
// where the platform allows it (slab_unix.go: an anonymous mapping). The
// garbage collector sizes the heap at twice what it finds live, so the
// 100,000 vectors of a large resource (190 MB at 384 dimensions) kept on
// the heap would cost twice that in resident memory; outside it they cost
// their size, and only the pages written to (issue 14, BENCHMARKS.md
// "Serving memory at 100k").
//
// A slab is freed explicitly (vecIndex.free, when its shard unloads) or,
// failing that, when its owner becomes unreachable (a runtime cleanup).
// Freed memory must not be read: every access goes through the owning
// vecIndex under its shard's lock, which free also takes.
type slab struct {
	mu  sync.Mutex
	mem []byte // nil once freed
	// file, for a slab mapped from a snapshot (mapChunks), is the file and
	// off the slab's offset in it; dirty is set (under the shard's write
	// lock) before the slab is first written. A clean file slab holds the
	// file's bytes: its vectors are read from the file (vecIndex.rowVec)
	// and it is copied from the file (writeChunks), so that its pages are
	// not brought into the process's resident set.
	file  *sharedFile
	off   int64
	dirty bool
}

// sharedFile is a file the slabs mapped from it read, closed with the
// last of them.
type sharedFile struct {
	f    *os.File
	refs atomic.Int32
}

// share returns a sharedFile of f held once (by the caller).
func share(f *os.File) *sharedFile {
	sf := &sharedFile{f: f}
	sf.refs.Store(1)
	return sf
}

// hold adds a holder of sf.
func (sf *sharedFile) hold() *sharedFile {
	sf.refs.Add(1)
	return sf
}

// release drops a holder of sf, closing it after the last.
func (sf *sharedFile) release() {
	if sf != nil && sf.refs.Add(-1) == 0 {
		sf.f.Close()
	}
}

// fileBacked reports whether the slab still holds its file's bytes.
func (s *slab) fileBacked() bool { return s.file != nil && !s.dirty }

// detach makes a slab mapped from a file hold its bytes in anonymous
// memory instead, and releases the file (caller holds the shard's write
// lock).
func (s *slab) detach() error {
	if s.file == nil || s.mem == nil {
		return nil
	}
	if err := detachMapping(s.mem); err != nil {
		return err
	}
	s.file.release()
	s.file = nil
	return nil
}

// touch marks the slab as written to (caller holds the shard's write
// lock), before the write.
func (s *slab) touch() { s.dirty = true }

// newSlab returns a zeroed slab of n bytes whose memory is released when
// owner becomes unreachable, if not freed before.
func newSlab[T any](n int, owner *T) *slab {
	s := &slab{mem: allocSlab(n)}
	runtime.AddCleanup(owner, func(s *slab) { s.free() }, s)
	return s
}

// adoptSlab returns the slab of mem, memory from mapPrivate (or
// allocSlab), released like newSlab's.
func adoptSlab[T any](mem []byte, owner *T) *slab {
	s := &slab{mem: mem}
	runtime.AddCleanup(owner, func(s *slab) { s.free() }, s)
	return s
}

// free releases the slab's memory; later calls do nothing.
func (s *slab) free() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem != nil {
		freeSlab(s.mem)
		s.mem = nil
		s.file.release()
	}
}

// int8s returns n int8 values of the slab from byte offset off.
func (s *slab) int8s(off, n int) []int8 {
	return unsafe.Slice((*int8)(unsafe.Pointer(&s.mem[off])), n)
}

// uint64s returns n uint64 values of the slab from byte offset off (a
// multiple of 8).
func (s *slab) uint64s(off, n int) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(&s.mem[off])), n)
}

// float32s returns n float32 values of the slab from byte offset off (a
// multiple of 4).
func (s *slab) float32s(off, n int) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(&s.mem[off])), n)
}
