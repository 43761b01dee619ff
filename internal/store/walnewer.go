package store

import (
	"bytes"
	"os"
)

// newerInFile reports whether the database file at path holds a later
// version of a page than the one the log b's valid prefix (frames
// 1..scan.Applied) leaves: a checkpoint had copied frames past the prefix
// into the file (ones the damage cut off the log: a damaged frame in the
// log's last transaction leaves no valid commit after it, so WALScan.Lost
// is false), and applying the prefix writes older versions over them.
// It is what tells so when no valid -shm says how far a checkpoint went
// (Checkpointed). Only pages the prefix writes and a frame of the log's
// generation (its salts) after it writes again can be newer; none: false,
// and nothing is read. One of them is newer when the file holds that
// later frame's page (a checkpoint copied it), or when it differs from
// the prefix's version while every other page the prefix writes is the
// prefix's version in the file (a checkpoint copied the prefix whole, and
// past it: the later frame is damaged, its bytes no longer the file's).
// Without a checkpoint past the prefix the file holds each such page as
// the prefix or an older version has it: false, but for a page a
// transaction wrote back to an older version (a false true, which costs
// a copy, not data). A checkpoint that stopped short of the prefix's end
// before one past it copied a damaged frame's page is not seen.
func newerInFile(path string, scan *WALScan, b []byte) bool {
	if scan.PageSize == 0 || scan.Applied >= scan.Frames {
		return false
	}
	b = scan.aligned(b)
	last := map[uint32]int{} // page → its last frame in the prefix
	for i := 1; i <= scan.Applied; i++ {
		pgno, _ := scan.frameHeader(b, i)
		last[pgno] = i
	}
	later := map[uint32][]int{} // page of the prefix → the frames after it that write it
	for i := scan.Applied + 1; i <= scan.Frames; i++ {
		if pgno, _ := scan.frameHeader(b, i); last[pgno] > 0 && scan.saltsMatch(frameAt(b, i, scan.PageSize)) {
			later[pgno] = append(later[pgno], i)
		}
	}
	if len(later) == 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	page := func(i int) []byte { return frameAt(b, i, scan.PageSize)[walFrameHeaderSize:] }
	read := func(pgno uint32, buf []byte) bool {
		_, err := f.ReadAt(buf, int64(pgno-1)*int64(scan.PageSize))
		return err == nil
	}
	buf := make([]byte, scan.PageSize)
	differs := false // a page written again differs from the prefix's version
	for pgno, frames := range later {
		if !read(pgno, buf) {
			return false
		}
		for _, i := range frames {
			if bytes.Equal(buf, page(i)) && !bytes.Equal(buf, page(last[pgno])) {
				return true // the file holds that later frame's page
			}
		}
		differs = differs || !bytes.Equal(buf, page(last[pgno]))
	}
	if !differs {
		return false
	}
	for pgno, j := range last {
		if _, again := later[pgno]; !again && (!read(pgno, buf) || !bytes.Equal(buf, page(j))) {
			return false // the file does not hold the whole prefix
		}
	}
	return true
}
