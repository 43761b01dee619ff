package recall

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// TestSnapshotPrefetch: a load for a search brings in, before the search
// runs, the pages of every column block that hold the query's non-zero
// columns (prefetchCols: present in the process's page table,
// /proc/self/pagemap), and none of the float32 rows, which stay read from
// the file; a load with no query (a write's) brings in no column page.
// The blocks are the file's (TestSnapshotColumns checks them against the
// codes, TestEraseDetachesSnapshot their detaching).
func TestSnapshotPrefetch(t *testing.T) {
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip("no /proc/self/pagemap")
	}
	defer pm.Close()
	defer func(v bool) { prefetchFinish = v }(prefetchFinish)
	prefetchFinish = true // the load waits for the touching to finish
	page := os.Getpagesize()
	present := func(b []byte) bool {
		var e [8]byte
		addr := uintptr(unsafe.Pointer(&b[0]))
		if _, err := pm.ReadAt(e[:], int64(addr/uintptr(page))*8); err != nil {
			t.Fatal(err)
		}
		return binary.LittleEndian.Uint64(e[:])>>63 == 1
	}
	path := filepath.Join(t.TempDir(), "s.snap")
	if err := os.WriteFile(path, snapshotBytes(t, fuzzShard(t, 2600)), 0o600); err != nil { // 3 vector chunks
		t.Fatal(err)
	}
	load := func(qv []float32) *vecIndex {
		sf, err := openSnapFile(path)
		if err != nil {
			t.Fatal(err)
		}
		defer sf.close()
		s := newShard("res", nil, false)
		if err := s.reset(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.unload)
		if _, err := s.readSnapshotFile(sf, HashEmbedder{}, qv); err != nil {
			t.Fatal(err)
		}
		if len(s.vx.chunks) != 3 || int(s.vx.colsBuilt.Load()) != 3 {
			t.Fatalf("%d chunks, %d column blocks", len(s.vx.chunks), s.vx.colsBuilt.Load())
		}
		return s.vx
	}

	qv := normalised(HashVector("two weeks in Lisbon item3"))
	pages := colPages(qv, page)
	if len(pages) == 0 {
		t.Fatal("the query is not sparse enough for the column pass")
	}
	x := load(qv)
	for c, ch := range x.chunks {
		for _, p := range pages {
			if !present(x.cols[c].mem.mem[p:]) {
				t.Errorf("column block %d: the query's page at %d not brought in", c, p)
			}
		}
		floats := ch.mem[chunkRows*x.stride : chunkRows*x.stride+chunkRows*4*x.dims]
		for off := 0; off < len(floats); off += page {
			if present(floats[off:]) {
				t.Fatalf("chunk %d: a float32 page brought in", c)
			}
		}
	}

	x = load(nil)
	for c, cc := range x.cols {
		for off := 0; off < len(cc.mem.mem); off += page {
			if present(cc.mem.mem[off:]) {
				t.Fatalf("column block %d: a page brought in by a load with no query", c)
			}
		}
	}
}

// TestSnapshotPrefetchUnmaps: the column blocks a search's load mapped
// are unmapped when the shard unloads, adopted or not. They were cut from
// one mapping, which x/sys's Munmap refuses to unmap by parts: freeSlab
// zeroed them in place instead, so they stayed mapped (and a zeroing over
// a file truncated meanwhile faulted: SIGBUS in the review's repro).
func TestSnapshotPrefetchUnmaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.snap")
	if err := os.WriteFile(path, snapshotBytes(t, fuzzShard(t, 2600)), 0o600); err != nil { // 3 vector chunks
		t.Fatal(err)
	}
	mapped := func() int {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Skip("no /proc/self/maps")
		}
		return strings.Count(string(maps), path)
	}
	sf, err := openSnapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := newShard("res", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	qv := normalised(HashVector("two weeks in Lisbon item3"))
	if _, err := s.readSnapshotFile(sf, HashEmbedder{}, qv); err != nil {
		t.Fatal(err)
	}
	sf.close()
	if mapped() == 0 {
		t.Fatal("no mapping of the snapshot after the load: the test proves nothing")
	}
	s.unload()
	if n := mapped(); n != 0 {
		t.Fatalf("%d mappings of the snapshot left after unload", n)
	}
}
