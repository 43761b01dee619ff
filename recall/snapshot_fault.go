package recall

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"unsafe"
)

// A snapshot file changed in place while a shard serves from its mapping
// (issue 14). mnemo replaces snapshot files by rename only, which a
// mapping does not see; but a file truncated or copied over in place (by
// hand, a restore tool, a sync) changes what the mapping holds: pages past
// a truncation raise SIGBUS when read, which kills a Go process, and pages
// copied over hold other bytes than those verified. Two defences:
//
//   - Before a shard serves an operation (lockedShard, Add, AddVectors,
//     Remove, the snapshot writer), the file it maps is checked against
//     the identity it had when mapped (fstat: size and modification
//     time; one system call): a file changed since is never read again.
//     The shard is dropped (its snapshot files deleted, its state
//     unloaded, Config.SnapshotDropped told) and the operation runs on the
//     shard built again from the Source.
//   - A change during an operation (after the check) can still fault. A
//     search runs with debug.SetPanicOnFault (on every goroutine that
//     reads the shard: goCatch sets it too), so that the fault is a panic
//     carrying the faulting address; Search recovers it, and when the
//     address lies in a mapping of a loaded shard, drops that shard as
//     above and runs the search once more (any other fault is raised
//     again). The load itself, the snapshot writer and the writes (Add,
//     AddVectors, Remove) are guarded alike: a write that faults drops
//     the shard (the Source holds the write) and runs again, on no shard.
//     (Before, a truncation between a write's check and its access to the
//     mapping killed the process: TestSnapshotTruncatedDuringWrite.)
//
// What holds: a truncation never crashes the process and never fails a
// search; the answers come from the Source's build. A file copied over in
// place with other bytes of the same size and modification time (a copy
// that restores the time, cp -p of a file of that very time) is not seen
// by the identity check: where its bytes make a read go out of range (a
// runtime error, not a fault), the guard checks the mapped files against
// their checksums (unsoundShard) and drops the shard whose file fails, as
// for a fault; where they do not, scores may be wrong until the shard
// unloads (docs/operations.md, "Locks, damage").

// errMappingFault: the operation faulted reading a snapshot mapping; the
// shard was dropped.
var errMappingFault = errors.New("recall: shard snapshot changed under its mapping")

// snapshotDrops counts the shards dropped because their file changed (for
// the tests).
var snapshotDrops atomic.Int64

// fileID is what fstat says of a file: its size and modification time
// (Unix nanoseconds). Not its status change time: mnemo's own rename of a
// new snapshot over a mapped one sets it.
type fileID struct{ size, mtime int64 }

// fileStamp is the identity of a mapped snapshot file when it was
// mapped, and the file (held while the shard maps it).
type fileStamp struct {
	id   fileID
	file *sharedFile
}

// stampOf returns sf's identity, holding its file.
func stampOf(sf *snapFile) (*fileStamp, error) {
	id, err := fileIdentity(sf.f)
	if err != nil {
		return nil, err
	}
	return &fileStamp{id: id, file: sf.sh.hold()}, nil
}

// changed reports whether the file no longer has the identity it had when
// mapped (or cannot be checked): one fstat.
func (st *fileStamp) changed() bool {
	if st == nil {
		return false
	}
	id, err := fileIdentity(st.file.f)
	return err != nil || id != st.id
}

// release drops the stamp's hold of the file.
func (st *fileStamp) release() {
	if st != nil {
		st.file.release()
	}
}

// mappingChanged reports whether the snapshot file s maps changed since
// it was mapped (caller holds s.mu).
func (s *shard) mappingChanged() bool { return s.stamp.changed() }

// dropChanged drops s, whose snapshot file changed under its mapping (or
// faulted): its resource's snapshot files are deleted and s unloaded; the
// next use builds it from the Source. The caller holds no lock of s.
func (ix *Index) dropChanged(s *shard, why string) {
	snapshotDrops.Add(1)
	ix.dropDamaged(s)
	if f := ix.cfg.SnapshotDropped; f != nil {
		f(s.resource, why)
	}
}

// guardFaults makes a memory fault of the calling goroutine a panic
// (debug.SetPanicOnFault) until the returned function runs; deferred, that
// function recovers a fault in a mapping of a loaded shard (or of extra),
// drops that shard and sets *err to errMappingFault. Any other panic is
// raised again.
func (ix *Index) guardFaults(err *error, extra ...*shard) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		p := recover()
		if p == nil {
			return
		}
		why := "fault reading its mapping"
		s := ix.faultedShard(p, extra)
		if s == nil {
			why = "its file no longer matches its checksums"
			s = ix.unsoundShard(p, extra)
		}
		if s == nil {
			panic(p)
		}
		ix.dropChanged(s, fmt.Sprintf("%s: %v", why, p))
		*err = errMappingFault
	}
}

// faultedShard returns the shard (loaded, or one of extra) one of whose
// mappings holds the address of the memory fault p, nil when p is no such
// fault.
func (ix *Index) faultedShard(p any, extra []*shard) *shard {
	re, ok := p.(runtime.Error)
	if !ok {
		return nil
	}
	fa, ok := re.(interface{ Addr() uintptr })
	if !ok {
		return nil
	}
	addr := fa.Addr()
	for _, s := range ix.loadedShards(extra) {
		if s.holds(addr) {
			return s
		}
	}
	return nil
}

// loadedShards returns extra and the loaded shards (a copy: the caller
// holds no lock of the index).
func (ix *Index) loadedShards(extra []*shard) []*shard {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	shards := append([]*shard(nil), extra...)
	for _, s := range ix.shards {
		shards = append(shards, s)
	}
	return shards
}

// unsoundShard returns, when p is a runtime error (an index out of range,
// a nil dereference: what bytes copied over a mapped file in place, with
// its size and modification time, can make the reads of a shard do), the
// shard (loaded, or one of extra) whose mapped snapshot file no longer
// matches its checksums; nil when p is no runtime error or every mapped
// file is sound (a bug of mnemo's, raised again). It reads every mapped
// file whole: ~200 MB at 100,000 messages, once per such panic.
func (ix *Index) unsoundShard(p any, extra []*shard) *shard {
	if _, ok := p.(runtime.Error); !ok {
		return nil
	}
	for _, s := range ix.loadedShards(extra) {
		if !s.mappedFileSound() {
			return s
		}
	}
	return nil
}

// mappedFileSound reports whether the snapshot file s maps (if any) still
// has a footer in bounds and both parts matching their CRC-32C.
func (s *shard) mappedFileSound() bool {
	s.mu.RLock()
	st := s.stamp
	var file *sharedFile
	if st != nil {
		file = st.file.hold()
	}
	s.mu.RUnlock()
	if file == nil {
		return true
	}
	defer file.release()
	sf := &snapFile{f: file.f}
	if sf.readFooter() != nil {
		return false
	}
	return sf.messagesMatch() && sf.vectorsMatch()
}

// holds reports whether addr lies in one of s's slabs mapped from a file.
func (s *shard) holds(addr uintptr) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	in := func(sl *slab) bool {
		if sl == nil || sl.file == nil || len(sl.mem) == 0 {
			return false
		}
		lo := uintptr(unsafe.Pointer(&sl.mem[0]))
		return addr >= lo && addr < lo+uintptr(len(sl.mem))
	}
	if s.text != nil {
		for _, sl := range s.text.chunks {
			if in(sl) {
				return true
			}
		}
	}
	if s.vx != nil {
		for _, sl := range s.vx.chunks {
			if in(sl) {
				return true
			}
		}
		for _, cc := range s.vx.cols {
			if cc != nil && in(cc.mem) {
				return true
			}
		}
	}
	return false
}

// Search runs q. It returns ErrInvalidQuery when the resource (or, with scope
// thread, the thread) is missing, ErrInvalidOptions or a *FilterError for bad
// options. A failing channel does not fail the search: the other channel
// answers and Result.Retrieval says so; only when both fail is an error
// returned. When ctx ends while a channel runs, the channel stops (each
// checks ctx as it reads: the shard's postings and vector rows every
// 4,096, bleve every 1,024 matches) and Search returns ctx's error,
// wrapped ("recall: search: …"; errors.Is context.Canceled or
// context.DeadlineExceeded). A search that faults reading a shard's
// snapshot mapping (its file changed in place meanwhile) runs once more,
// on the shard built again from the Source (see above).
func (ix *Index) Search(ctx context.Context, q Query) (*Result, error) {
	return retryFaults(ix, func() (*Result, error) { return ix.search(ctx, q) })
}

// retryFaults runs fn guarded against faults in snapshot mappings
// (guardFaults), and once more when one faulted (its shard dropped: fn
// then reads the shard built again from the Source).
func retryFaults[T any](ix *Index, fn func() (T, error)) (T, error) {
	v, err := guardedCall(ix, fn)
	if errors.Is(err, errMappingFault) {
		v, err = guardedCall(ix, fn)
	}
	return v, err
}

func guardedCall[T any](ix *Index, fn func() (T, error)) (v T, err error) {
	defer ix.guardFaults(&err)()
	return fn()
}

// checkedShard returns s unless its snapshot file changed under its
// mapping; then it drops s and returns nil (caller holds no lock of s).
func (ix *Index) checkedShard(s *shard) *shard {
	s.mu.RLock()
	changed := s.loaded && s.mappingChanged()
	s.mu.RUnlock()
	if changed {
		ix.dropChanged(s, "its file changed since it was mapped")
		return nil
	}
	if shardCheckedHook != nil {
		shardCheckedHook()
	}
	return s
}
