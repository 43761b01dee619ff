package store

import (
	"bytes"
	"encoding/binary"
)

// WALPage returns page pgno (from 1) of the database at path as its
// write-ahead log holds it: the page of the last frame for pgno that
// SQLite's recovery applies (through WALScan.Applied), and ok false when
// the log holds none (the file's page is the current one), or there is no
// log, or it is not a file. The log is mapped and read, never changed; an
// error means it could not be read.
func WALPage(path string, pgno uint32) (page []byte, ok bool, err error) {
	err = withLog(path+"-wal", true, func(b []byte) error {
		s := ScanWAL(b)
		for i := s.Applied; i >= 1; i-- {
			if f := frameAt(b, i, s.PageSize); binary.BigEndian.Uint32(f) == pgno {
				page, ok = bytes.Clone(f[walFrameHeaderSize:]), true
				return nil
			}
		}
		return nil
	})
	return page, ok, err
}
