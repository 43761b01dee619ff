package recall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// errSnapshotSmall: a rewritten shard is under SnapshotMin; its old files
// are scrubbed instead.
var errSnapshotSmall = errors.New("recall: shard under SnapshotMin")

// rewriteSnapshots replaces the snapshot of each of resources whose shard is
// not loaded by one read from it and caught up with the Source, which no
// longer holds the removed messages (catchUp drops a thread the Source no
// longer lists and reads again a thread that lost a message,
// snapshot_catchup.go), and deletes the resource's other snapshot files
// (other embedders'). It returns the resources it did not rewrite: loaded
// (their shard is written again by the writer), without a snapshot, or on
// any failure; the caller scrubs their files.
//
// Without it an erasure deleted the snapshot, and the process's Close (or
// the next first use) rebuilt the whole shard from the Source to write it
// again: 2.3 s of CPU and 300 MB for one thread of an 80k-message resource
// (BENCHMARKS.md, "Erasing a thread of a large resource").
func (ix *Index) rewriteSnapshots(ctx context.Context, resources []string) (scrub []string) {
	for _, r := range resources {
		if !ix.rewriteSnapshot(ctx, r) {
			scrub = append(scrub, r)
		}
	}
	return scrub
}

// rewriteSnapshot is rewriteSnapshots for one resource; it reports whether
// the resource's files now hold only the new snapshot.
func (ix *Index) rewriteSnapshot(ctx context.Context, resource string) (done bool) {
	sn := ix.snap
	if _, ok := ix.cfg.Source.(SnapshotSource); sn == nil || !ok || ix.loadedShard(resource) != nil {
		return false
	}
	path := sn.path(resource)
	if _, err := os.Lstat(path); err != nil {
		return false
	}
	f, err := os.CreateTemp(sn.dir, hashName(resource)+".tmp-*")
	if err != nil {
		return false
	}
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := ix.encodeFromSnapshot(ctx, resource, f); err != nil {
		return false
	}
	if f.Sync() != nil {
		return false
	}
	sn.fileMu.Lock()
	defer sn.fileMu.Unlock()
	sn.gen[resource]++ // a snapshot being written from before the removal is discarded
	if os.Rename(f.Name(), path) != nil {
		return false
	}
	prefix, keep := hashName(resource)+".", filepath.Base(path)
	if removeMatching(sn.dir, func(name string) bool { return strings.HasPrefix(name, prefix) && name != keep }) != nil {
		return false
	}
	syncDir(sn.dir)
	f.Close()
	return true
}

// encodeFromSnapshot writes into f the snapshot of resource read from its
// current snapshot file and caught up with the Source (its vector part
// verified first). It fails with errSnapshotSmall, writing nothing, for a
// shard under SnapshotMin.
func (ix *Index) encodeFromSnapshot(ctx context.Context, resource string, f *os.File) (err error) {
	t := newShard(resource, ix.location(resource), false)
	defer t.unload()
	defer ix.guardFaults(&err, t)()
	sf, err := ix.fillFromSnapshot(ctx, t)
	if err != nil {
		return err
	}
	if sf != nil && !ix.verifyNow(t, sf) {
		return errSnapshot
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	n, err := ix.encodeLocked(t, f)
	if err == nil && n < ix.snap.min {
		return errSnapshotSmall
	}
	return err
}

// fillFromSnapshot fills the temporary shard t from its snapshot file only
// (never from the Source) and returns the file whose vector part is still
// to verify.
func (ix *Index) fillFromSnapshot(ctx context.Context, t *shard) (*snapFile, error) {
	t.loadMu.Lock()
	defer t.loadMu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := ix.fromSnapshot(ctx, t, ix.cfg.Source.(SnapshotSource), nil); err != nil {
		return nil, err
	}
	sf := t.pending
	t.pending = nil
	return sf, nil
}
