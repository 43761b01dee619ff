package recall

import (
	"os"
	"syscall"
)

// snapHeadMax is how much of a snapshot file fileMessages reads: the
// magic, the header's strings (resource, embedder, analyser, answer rules)
// and the BM25 statistics' message count come first.
const snapHeadMax = 64 << 10

// fileMessages returns the message count resource's snapshot file holds,
// read from its header (the BM25 statistics' n) without checking the
// part's checksum, or 0 for no readable file of this format and embedder.
// It is only a hint of the resource's size for scheduling (due), never
// used to serve.
func (sn *snapshots) fileMessages(resource string) int {
	if sn.dir == "" || sn.emb == nil {
		return 0
	}
	f, err := os.OpenFile(sn.path(resource), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	b := make([]byte, min(fi.Size(), snapHeadMax))
	if _, err := f.ReadAt(b, 0); err != nil {
		return 0
	}
	r := &snapReader{b: b}
	if string(r.take(len(snapMagic))) != snapMagic || r.u32() != snapVersion {
		return 0
	}
	res, embID := r.str(), r.str()
	r.u32() // dims
	r.str() // analyser
	r.str() // answer rules
	r.u32() // chunk rows
	r.i64() // chunk bytes
	n := r.i64()
	if r.err != nil || res != resource || embID != sn.emb.ID() || n <= 0 || n > 1<<40 {
		return 0
	}
	return int(n)
}
