package recall

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/util"
	bolt "go.etcd.io/bbolt"
)

// VerifySegments checks the checksum of every segment file the index's
// current snapshot reads: zap ends each file with the CRC-32 (IEEE) of
// all the bytes before it. A mismatch marks the index damaged and returns
// an error matching ErrCorrupt; a search would only meet such damage when
// it reads the garbled bytes (a term's postings, a stored text), and the
// id listing of IDs does not read them. Segments still in memory have no
// file and are skipped; the snapshot holds the files it names, so none is
// removed while it is read. An in-memory index (path "") has nothing to
// verify.
func (l *Lexical) VerifySegments(ctx context.Context) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	if err := l.Damaged(); err != nil {
		return err
	}
	paths, release, err := l.liveSegmentFiles(ctx)
	if err != nil {
		return err
	}
	defer release()
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		ok, err := segmentChecksumOK(p)
		if err != nil {
			return fmt.Errorf("recall: verify %s: %w", p, err)
		}
		if !ok {
			l.markDamaged(fmt.Errorf("segment %s: checksum mismatch", filepath.Base(p)))
			return l.Damaged()
		}
	}
	return nil
}

// SegmentFiles lists the segment files the index's current snapshot reads
// (segments still in memory have none). Errors: ErrClosed after Close;
// ctx's; bleve's.
func (l *Lexical) SegmentFiles(ctx context.Context) ([]string, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	paths, release, err := l.liveSegmentFiles(ctx)
	if err == nil {
		release()
	}
	return paths, err
}

// liveSegmentFiles returns the segment files of the current snapshot and a
// release for the snapshot, which holds them while it is not released.
func (l *Lexical) liveSegmentFiles(ctx context.Context) (paths []string, release func(), err error) {
	release = func() {}
	err = l.guardRead(ctx, func() error {
		adv, err := l.idx.Advanced()
		if err != nil {
			return err
		}
		r, err := adv.Reader()
		if err != nil {
			return err
		}
		s, ok := r.(*scorch.IndexSnapshot)
		if !ok {
			return r.Close()
		}
		release = func() { _ = s.Close() }
		for _, seg := range s.Segments() {
			if p, ok := seg.Segment().(interface{ Path() string }); ok && p.Path() != "" {
				paths = append(paths, p.Path())
			}
		}
		return nil
	})
	if err != nil {
		release()
		return nil, func() {}, err
	}
	return paths, release, nil
}

// segmentChecksumOK reports whether the zap segment file at path ends with
// the CRC-32 (IEEE) of the bytes before its last four.
func segmentChecksumOK(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	if fi.Size() < 4 {
		return false, nil
	}
	h := crc32.NewIEEE()
	if _, err := io.CopyN(h, f, fi.Size()-4); err != nil {
		return false, err
	}
	var tail [4]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil {
		return false, err
	}
	return h.Sum32() == binary.BigEndian.Uint32(tail[:]), nil
}

// snapshotSegmentFiles lists the segment files that the newest snapshot
// recorded in the index's store/root.bolt names: the files bleve.OpenUsing
// loads (scorch's loadFromBolt reads the last snapshot bucket of
// util.BoltSnapshotsBucket; each of its buckets other than the metadata and
// internal ones is a segment whose util.BoltPathKey names its file). A
// segment file no snapshot names (one a crash left half written) is not
// listed. The bolt file is opened read-only and closed before returning.
func snapshotSegmentFiles(path string) ([]string, error) {
	store := filepath.Join(path, "store")
	if err := checkBoltSize(filepath.Join(store, "root.bolt")); err != nil && !errors.Is(err, os.ErrNotExist) { // boltsize.go
		return nil, err
	}
	db, err := bolt.Open(filepath.Join(store, "root.bolt"), 0o600, &bolt.Options{ReadOnly: true, Timeout: BoltTimeout})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var files []string
	err = db.View(func(tx *bolt.Tx) error {
		snapshots := tx.Bucket(util.BoltSnapshotsBucket)
		if snapshots == nil {
			return nil
		}
		c := snapshots.Cursor()
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			if snap := snapshots.Bucket(k); snap != nil {
				files = segmentsOf(snap, store)
				return nil
			}
		}
		return nil
	})
	return files, err
}

// segmentsOf returns the files of the segment buckets of one snapshot.
func segmentsOf(snap *bolt.Bucket, store string) []string {
	var files []string
	c := snap.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) == 0 || k[0] == util.BoltInternalKey[0] || k[0] == util.BoltMetaDataKey[0] {
			continue
		}
		if seg := snap.Bucket(k); seg != nil {
			if p := seg.Get(util.BoltPathKey); len(p) > 0 {
				files = append(files, filepath.Join(store, string(p)))
			}
		}
	}
	return files
}

// verifySnapshotChecksums checks, before bleve opens the index at path, the
// checksum of every segment file its newest snapshot names. zapx trusts the
// sizes and offsets it reads from a segment: a garbled one can make it
// allocate terabytes while opening (a fatal out-of-memory error that no
// recover catches, seen with the damage tests), so damage must be found
// before zapx reads the file. A mismatch returns an error naming the
// segment (the caller reports ErrCorrupt: quarantine and rebuild). Cost: one
// sequential read of the index's live segments per Open.
func verifySnapshotChecksums(path string) error {
	files, err := snapshotSegmentFiles(path)
	if err != nil {
		return err
	}
	for _, f := range files {
		ok, err := segmentChecksumOK(f)
		if err != nil {
			return fmt.Errorf("segment %s: %w", filepath.Base(f), err)
		}
		if !ok {
			return fmt.Errorf("segment %s: checksum mismatch", filepath.Base(f))
		}
	}
	return nil
}
