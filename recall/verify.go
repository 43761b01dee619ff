package recall

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2/index/scorch"
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
// (segments still in memory have none).
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
