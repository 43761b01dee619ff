package recall

import (
	"hash/crc32"
	"sync"
	"sync/atomic"
	"time"
)

// The background check of a loaded snapshot's vector part (issue 14).
// Reading a snapshot's ~200 MB of vectors to check their CRC-32C before
// serving would cost most of a first use, so a shard serves as soon as its
// messages part is verified (snapshot_read.go) and its vector chunks are
// mapped; a goroutine then reads the vector part through the file (pread,
// which leaves the pages out of the process's resident set) and checks
// its sum. If it does not match, the resource's snapshot files are deleted
// (a snapshot written meanwhile from the shard would hold the same bytes;
// one being written is discarded: snapshots.scrub), the shard is unloaded,
// and the next search builds it from the Source.
//
// What a search may see meanwhile, from a file whose vector part is
// damaged (a disk or a copy gone wrong; the tests flip a byte): every row
// it returns is a real message of the resource with its true content,
// thread, metadata and statistics, all from the verified part; only
// vector scores may be wrong, so the vector channel may rank some
// messages too high or too low, or miss some. A score that is not a
// finite number is never returned (vecIndex.exact drops the row). No
// read goes out of bounds: the chunks' size and count are checked against
// the file and the rows before they are mapped.

//
// Until the check passes, no snapshot is written from the shard
// (shard.unverified; the writer tries again later), so that a damaged
// vector never reaches a new file under a good checksum; a shard loaded
// only to write a snapshot (Index.encodeShard) is checked before it is
// written. Close waits for the checks under way.
//
// The check starts once the search that loaded the shard has ranked its
// hits (shard.loadedBy), or after verifyWait when no search comes (a load
// for a write), or at Close: on two cores its ~35 ms of CPU (pread and
// CRC of ~200 MB at 100,000 messages) otherwise ran beside that first
// search, the one a user waits for (issue 14).

// verifyLater starts the background check of the vector part of the
// snapshot s was just filled from (caller holds loadMu), if any.
func (ix *Index) verifyLater(s *shard) {
	sf := s.pending
	if sf == nil {
		return
	}
	s.pending = nil
	sn := ix.snap
	sn.verifying.Add(1)
	searched := make(chan struct{})
	s.loadedBy.Store(&searched)
	go func() {
		defer sn.verifying.Done()
		t := time.NewTimer(verifyWait)
		select {
		case <-searched:
		case <-t.C:
		case <-sn.ctx.Done():
		}
		t.Stop()
		if ix.verifyNow(s, sf) {
			s.unverified.Store(false)
		}
	}()
}

// verifyWait is how long the check of a loaded vector part waits for the
// search that loaded it to finish (a variable for the tests).
var verifyWait = 250 * time.Millisecond

// searched tells the check of s's vector part, if it waits (verifyLater),
// that a search of s has ranked its hits.
func (s *shard) searched() {
	if c := s.loadedBy.Swap(nil); c != nil {
		close(*c)
	}
}

// verifyNow checks sf's vector part and closes it; when it does not
// match, the snapshot files of s's resource are deleted and s unloaded.
// It reports whether it matched.
func (ix *Index) verifyNow(s *shard, sf *snapFile) bool {
	ok := sf.vectorsMatch()
	sf.close()
	if ok {
		snapshotVerified.Add(1)
		return true
	}
	snapshotRejected.Add(1)
	ix.dropDamaged(s)
	if f := ix.cfg.SnapshotDropped; f != nil {
		f(s.resource, "its vector part failed its checksum")
	}
	return false
}

// snapshotVerified and snapshotRejected count the checks of vector parts
// that passed and failed (for the tests).
var snapshotVerified, snapshotRejected atomic.Int64

// vectorsMatch reports whether the vector part's CRC-32C is the footer's
// (false when it cannot be read).
func (sf *snapFile) vectorsMatch() bool {
	return sf.rangeMatches(sf.vecOff, sf.size-snapFooter, sf.vecCRC)
}

// rangeMatches reports whether the CRC-32C of the file's bytes [from, to)
// is want (false when they cannot be read), reading them through the file.
func (sf *snapFile) rangeMatches(from, to int64, want uint32) bool {
	sum, ok := sf.sumRange(0, from, to)
	return ok && sum == want
}

// sumRange returns sum updated with the CRC-32C of the file's bytes
// [from, to), read through the file; false when they cannot be read.
func (sf *snapFile) sumRange(sum uint32, from, to int64) (uint32, bool) {
	bp := verifyBufs.Get().(*[]byte)
	defer verifyBufs.Put(bp)
	buf := *bp
	for off := from; off < to; {
		n := int(min(int64(len(buf)), to-off))
		if _, err := sf.f.ReadAt(buf[:n], off); err != nil {
			return 0, false
		}
		sum = crc32.Update(sum, castagnoli, buf[:n])
		off += int64(n)
	}
	return sum, true
}

// verifyBufs holds the 1 MiB buffers vectorsMatch reads through: a fresh
// one a load was 256 first touches of fresh pages (issue 14).
var verifyBufs = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// dropDamaged deletes the snapshot files of s's resource and unloads s
// (the next search builds the resource from the Source).
func (ix *Index) dropDamaged(s *shard) {
	_ = ix.snap.scrub([]string{s.resource}, false)
	ix.mu.Lock()
	if ix.shards[s.resource] == s {
		delete(ix.shards, s.resource)
		ix.loaded -= s.size
		s.size = 0
	}
	ix.mu.Unlock()
	s.unload()
}
