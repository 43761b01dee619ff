package recall

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"runtime/debug"
	"syscall"
	"unsafe"
)

// Reading a shard snapshot (the format: snapshot_format.go). The messages
// part is mapped copy-on-write and its checksum verified before anything
// is returned from it (its contents and term ids by block, on first use:
// snapshot_blocks.go); its contents and term ids are used where they lie (the
// mapping becomes one of the shard's arena slabs: erasing a message zeroes
// its bytes in the process's copy of the page, never in the file). The
// vector chunks are mapped likewise and become the vecIndex's slabs; their
// checksum is verified in the background (snapshot_verify.go). Every
// count, length, offset and slot read (and each term id, with its block)
// is checked against the file's bounds, so that no file, damaged or forged, can make a load read
// out of bounds or build an inconsistent shard (FuzzSnapshotLoad).
//
// Erasure: removing a message zeroes its bytes in the process's copies of
// the mapped pages (arena.eraseEntry, vecIndex.remove), and Index.Remove
// deletes the resource's files before it returns; a deleted file still
// mapped by a loaded shard is reachable by no name, and its blocks are
// freed when the shard unloads (or the process ends).

// snapFile is an open snapshot file and its footer. The file is shared
// with the slabs mapped from it (sh): close releases the snapFile's hold.
type snapFile struct {
	f       *os.File
	sh      *sharedFile
	size    int64
	metaEnd int64 // the messages part is [0, metaEnd)
	metaCRC uint32
	vecOff  int64 // the vector part is [vecOff, size−snapFooter)
	vecCRC  uint32
}

// openSnapFile opens path and checks that it is a regular file and its
// footer's bounds. It opens without blocking: a FIFO in the file's place
// would otherwise wait for a writer forever (errSnapshot, as is anything
// but a regular file).
func openSnapFile(path string) (*snapFile, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: not a regular file", errSnapshot)
	}
	sf := &snapFile{f: f, sh: share(f)}
	if err := sf.readFooter(); err != nil {
		sf.close()
		return nil, err
	}
	return sf, nil
}

// close releases the snapFile's hold of the file.
func (sf *snapFile) close() { sf.sh.release() }

func (sf *snapFile) readFooter() error {
	fi, err := sf.f.Stat()
	if err != nil {
		return err
	}
	sf.size = fi.Size()
	if sf.size < int64(len(snapMagic))+8+snapFooter || sf.size != int64(int(sf.size)) {
		return fmt.Errorf("%w: size %d", errSnapshot, sf.size)
	}
	var b [snapFooter]byte
	if _, err := sf.f.ReadAt(b[:], sf.size-snapFooter); err != nil {
		return fmt.Errorf("%w: footer: %v", errSnapshot, err)
	}
	sf.metaEnd = int64(binary.LittleEndian.Uint64(b[0:]))
	sf.metaCRC = binary.LittleEndian.Uint32(b[8:])
	sf.vecCRC = binary.LittleEndian.Uint32(b[12:])
	sf.vecOff = (sf.metaEnd + snapAlign - 1) / snapAlign * snapAlign
	if string(b[16:]) != snapEnd || sf.metaEnd <= int64(len(snapMagic)) || sf.metaEnd > sf.size-snapFooter ||
		sf.vecOff > sf.size-snapFooter {
		return fmt.Errorf("%w: footer", errSnapshot)
	}
	return nil
}

// snapReader decodes the messages part held in memory; every read is
// bounds checked (a file that passed its checksum may still be of another
// build, or forged).
type snapReader struct {
	b   []byte
	off int
	err error
	// later holds the checks of what was read that nothing reads before
	// the load returns (the orders of the ids and terms, the postings):
	// run beside the decoding of the entries
	// (entryReader.decode), each of them must pass before the load
	// returns.
	later []func() error
	// regions are where the contents and term ids were found, which the
	// part's trailer must name (snapshot_blocks.go).
	regions regions
}

// check adds fn to the checks run beside the decoding (later).
func (r *snapReader) check(fn func() error) { r.later = append(r.later, fn) }

func (r *snapReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		if r.err == nil {
			r.err = fmt.Errorf("%w: truncated at byte %d", errSnapshot, r.off)
		}
		return nil
	}
	b := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

func (r *snapReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *snapReader) i64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// count reads a u32 count of items of at least min bytes each, checked
// against the bytes left.
func (r *snapReader) count(min int) int {
	n := int(r.u32())
	if r.err == nil && n*min > len(r.b)-r.off {
		r.err = fmt.Errorf("%w: count %d at byte %d exceeds the file", errSnapshot, n, r.off)
		return 0
	}
	return n
}

// bytesOf reads a length-prefixed byte string (pointing into the file).
func (r *snapReader) bytesOf() []byte { return r.take(int(r.u32())) }

func (r *snapReader) str() string { return string(r.bytesOf()) }

// mapped returns b as a string sharing its memory (the mapped messages
// part, which the shard's arena owns).
func mapped(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// uint32s reads n u32 values in place after the padding to a multiple of
// 4 bytes (the part starts page-aligned, so they are aligned in memory).
func (r *snapReader) uint32s(n int) []uint32 {
	r.take((4 - r.off%4) % 4)
	b := r.take(4 * n)
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
}

// float32s reads n float32 values in place after the padding to a
// multiple of 4 bytes, as uint32s does (an append past them copies).
func (r *snapReader) float32s(n int) []float32 {
	u := r.uint32s(n)
	if len(u) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&u[0])), n)
}

// readSnapshotFile fills s (reset, caller holds mu) from the snapshot file
// sf, which must be of s's resource, embedder emb, the current analyser and
// answer-type rules. The messages part is verified first; the vector part
// is mapped unverified (the caller verifies it: snapshot_verify.go). It
// returns the messages that have no vector. On error s holds partial state
// (the caller resets it).
func (s *shard) readSnapshotFile(sf *snapFile, emb Embedder, qv []float32) ([]string, error) {
	meta, fromFile, err := mapPrivate(sf.f, 0, int(sf.metaEnd))
	if err != nil {
		return nil, fmt.Errorf("recall: map snapshot: %w", err)
	}
	sl := adoptSlab(meta, s.text)
	if fromFile {
		sl.file, sl.dirty = sf.sh.hold(), true // for detachFile; never read from the file
	}
	s.text.adopt(sl)
	loadMark("map messages")
	pf := s.prefetchCols(sf, meta, emb, qv) // brought in beside the decoding
	defer pf.release()
	// The checksum is summed while the part is decoded (every read is
	// bounds checked, so unverified bytes can do no harm meanwhile), and
	// waited for before anything is returned: the shard serves nothing
	// of a part whose sum does not match.
	sum := make(chan uint32, 1)
	go func() {
		// A fault (the file truncated meanwhile) is a mismatch, not a crash.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if recover() != nil {
				sum <- ^sf.metaCRC
			}
		}()
		if fromFile {
			// Every page of the part is read (its checksum, the
			// decoding; the contents and term ids by the searches):
			// mapped at once, not by ~700 faults, beside the decoding.
			// Populating only the summed pages left ~150 faults of
			// content pages to the first search and ~9 more to each of
			// the next hundred calls (issue 14, helper "ord").
			populateRead(meta)
			loadMark("populate (beside)")
		}
		v := partSum(meta, sf.metaCRC)
		loadMark("checksum (beside)")
		sum <- v
	}()
	vectorless, vp, err := s.readMessages(&snapReader{b: meta}, emb)
	loadMark("decode")
	if <-sum != sf.metaCRC {
		return nil, errSnapChecksum
	}
	loadMark("checksum waited")
	if err != nil {
		return nil, err
	}
	err = s.mapChunks(sf, vp, pf)
	loadMark("map vectors")
	return vectorless, err
}

// checksum returns the CRC-32C of b, summed 1 MiB at a time: the
// assembly that sums a slice cannot be preempted, and a collection that
// starts meanwhile stops every goroutine (the load's too) until it returns:
// ~20 ms for the 45.6 MB messages part of 100,000 messages (issue 14).
func checksum(b []byte) uint32 { return checksumFrom(0, b) }

// checksumFrom returns sum updated with b, as checksum sums.
func checksumFrom(sum uint32, b []byte) uint32 {
	for len(b) > 0 {
		n := min(len(b), 1<<20)
		sum = crc32.Update(sum, castagnoli, b[:n])
		b = b[n:]
	}
	return sum
}

// vecPart is what the messages part says of the vector part: the size of
// a chunk, and whether the column blocks follow the chunks.
type vecPart struct {
	chunkBytes int64
	cols       bool
}

// readMessages decodes the messages part r holds into s and returns the
// messages without a vector and the vector part's layout.
func (s *shard) readMessages(r *snapReader, emb Embedder) (vectorless []string, vp vecPart, err error) {
	if string(r.take(len(snapMagic))) != snapMagic {
		return nil, vp, fmt.Errorf("%w: not a snapshot", errSnapshot)
	}
	if v := r.u32(); v != snapVersion {
		return nil, vp, fmt.Errorf("%w %d, want %d", errSnapVersion, v, snapVersion)
	}
	dims, cb, err := s.readHeader(r, emb)
	if err != nil {
		return nil, vp, err
	}
	if err := s.readStats(r); err != nil {
		return nil, vp, err
	}
	spare, err := s.readIDs(r)
	if err != nil {
		return nil, vp, err
	}
	if err := s.readOrdArrays(r, len(s.docs.file)); err != nil {
		return nil, vp, err
	}
	slots, vectorless, err := s.readThreads(r, dims, spare)
	if err != nil {
		return nil, vp, err
	}
	for n := r.count(4); n > 0 && r.err == nil; n-- {
		if s.damaged == nil {
			s.damaged = map[string]bool{}
		}
		s.damaged[r.str()] = true
	}
	vp.chunkBytes = cb
	if vp.cols, err = s.readRows(r, dims, slots); err != nil {
		return nil, vp, err
	}
	if t := r.aligned(8, trailerSize); r.err == nil {
		if g, ok := parseRegions(t, int64(len(r.b))); !ok || g != r.regions {
			r.err = fmt.Errorf("%w: regions of the trailer", errSnapshot)
		}
	}
	if r.err == nil && r.off != len(r.b) {
		r.err = fmt.Errorf("%w: %d bytes left over", errSnapshot, len(r.b)-r.off)
	}
	return vectorless, vp, r.err
}

// readHeader checks the header against s and emb and returns the vectors'
// dimensions and chunk bytes.
func (s *shard) readHeader(r *snapReader, emb Embedder) (dims int, chunkBytes int64, err error) {
	res, embID, dims, analyser, rules := r.str(), r.str(), int(r.u32()), r.str(), r.str()
	rows, cb := int(r.u32()), r.i64()
	switch {
	case r.err != nil:
		return 0, 0, r.err
	case res != s.resource || embID != emb.ID() || analyser != AnalyzerName || rules != s.rules() || (dims != 0 && dims != emb.Dims()):
		return 0, 0, fmt.Errorf("%w: of resource %q, embedder %s/%d, analyser %s, answer rules %s", errSnapOther, res, embID, dims, analyser, rules)
	case rows != chunkRows || (dims != 0 && cb != int64(newVecIndex(dims).chunkBytes())):
		return 0, 0, fmt.Errorf("%w: vector chunks of %d rows, %d bytes", errSnapshot, rows, cb)
	}
	return dims, cb, nil
}

// readStats reads the statistics and the terms (v8: snapshot_format.go)
// into s.stats: the terms are used in place in the mapping (termDict),
// their document frequencies copied. The ids by term must be a
// permutation sorted by strictly ascending term: no term twice.
func (s *shard) readStats(r *snapReader) error {
	s.stats.n = int(r.i64())
	s.stats.totalLen = r.i64()
	n := r.count(12)
	blob, offs, err := r.strings(n)
	if err != nil {
		return err
	}
	dfs := r.uint32s(n)
	byTerm := r.uint32s(n)
	if r.err != nil {
		return r.err
	}
	d := termDict{blob: blob, offs: offs, byTerm: byTerm}
	r.check(func() error {
		if !sortedPermutation(byTerm, d.fileTerm) {
			return fmt.Errorf("%w: terms not sorted or repeated", errSnapshot)
		}
		return nil
	})
	s.stats.ids = d
	s.stats.df = make([]int, n)
	for i, v := range dfs {
		s.stats.df[i] = int(v)
	}
	return nil
}

// strings reads n strings laid out by snapWriter.strings: their bytes (in
// the mapping) and the n+1 offsets into them, checked.
func (r *snapReader) strings(n int) (string, []uint32, error) {
	offs := r.uint32s(n + 1)
	blob := r.bytesOf()
	if r.err != nil {
		return "", nil, r.err
	}
	if offs[0] != 0 || int(offs[n]) != len(blob) {
		return "", nil, fmt.Errorf("%w: string offsets", errSnapshot)
	}
	for i := range n {
		if offs[i] > offs[i+1] {
			return "", nil, fmt.Errorf("%w: string offsets", errSnapshot)
		}
	}
	return mapped(blob), offs, nil
}

// sortedPermutation reports whether order holds each of 0..len(order)-1
// once, by strictly ascending key: strictly ascending implies each once.
func sortedPermutation(order []uint32, key func(uint32) string) bool {
	for i, o := range order {
		if int(o) >= len(order) || (i > 0 && key(order[i-1]) >= key(o)) {
			return false
		}
	}
	return true
}

// readPostings reads the offsets of each term's postings list (v11) and
// keeps them beside the lists, used in place (postings.list; a write makes
// the lists: postings.own): ords of the n messages read, strictly
// ascending, each with a frequency (checked beside the decoding:
// snapReader.later). Only the offsets are read here; the lists' bytes are
// first read by that check.
func (s *shard) readPostings(r *snapReader, n int) error {
	offs := r.uint32s(len(s.stats.df) + 1)
	if r.err != nil {
		return r.err
	}
	total := offs[len(offs)-1]
	all := r.uint32s(int(total))
	if r.err != nil {
		return r.err
	}
	at := uint32(0)
	for t := range len(offs) - 1 {
		if offs[t] != at || offs[t+1] < at || offs[t+1] > total {
			return fmt.Errorf("%w: postings offset of term %d", errSnapshot, t)
		}
		at = offs[t+1]
	}
	p := &s.post
	p.lists, p.file, p.offs = nil, all, offs
	r.check(func() error {
		for t := range len(offs) - 1 {
			prev := -1
			for _, v := range all[offs[t]:offs[t+1]] {
				o := int(v >> tfBits)
				if o <= prev || o >= n || v&tfMax == 0 {
					return fmt.Errorf("%w: postings of term %d", errSnapshot, t)
				}
				prev = o
			}
		}
		return nil
	})
	return nil
}

// float64s reads n float64 values in place after the padding to a
// multiple of 8 bytes (the part starts page-aligned), as uint32s does.
func (r *snapReader) float64s(n int) []float64 {
	return inPlace[float64](r.aligned(8, 8*n), n)
}

// aligned takes n bytes after the zero padding to a multiple of align.
func (r *snapReader) aligned(align, n int) []byte {
	r.take((align - r.off%align) % align)
	return r.take(n)
}

// inPlace returns b as n Ts (nil when b is empty), of capacity n: an
// append past them copies instead of writing over what follows.
func inPlace[T any](b []byte, n int) []T {
	if len(b) == 0 || n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)[:n:n]
}

// readOrdArrays reads the postings' per-ord arrays (v9:
// snapshot_format.go) of the n messages into s.post, used in place in the
// mapping (before them, computing the times, months and relative dates of
// 100,000 messages and copying the threads' vector sums cost ~18 ms of a
// first use: issue 14). The creation times and term counts are checked
// against the messages as they are read, the relative dates' lengths
// against maxRefDays (entryReader.entry; the entries take their relative
// dates from here); the months are not checked: a wrong one misdates a
// message for a query naming a month, as a forged creation time would.
// The neighbours by ord are computed (entryReader.thread).
func (s *shard) readOrdArrays(r *snapReader, n int) error {
	when := r.aligned(8, 8*n)
	refs, lens, months := r.take(8*n), r.take(4*n), r.take(n)
	if r.err != nil {
		return r.err
	}
	if n > maxOrd+1 {
		return fmt.Errorf("%w: more messages than postings can number", errSnapshot)
	}
	p := &s.post
	p.when, p.ref = inPlace[int64](when, n), inPlace[dayRange](refs, n)
	p.lens, p.month = inPlace[int32](lens, n), inPlace[uint8](months, n)
	return nil
}

// readIDs reads the message ids (snapshot_format.go) into s.docs: the
// offsets, the bytes and the ords by id are used in place in the mapping
// (copying the 2.9 MB of ids of 100,000 messages onto fresh heap pages cost
// ~18 ms of a first use: issue 14), so an entry's doc.ID lies in the
// mapping like its content, and whatever outlives the shard copies it
// (the hits of a search: hitID). The ords must be a permutation sorted by
// strictly ascending id: no id twice. The entries by ord (docs.file) are
// the first quarter of a block off the Go heap, in huge pages (offMake);
// the rest, room for 3n more, is returned for the vector slots, the
// postings' entries by ord and the threads' entries (readThreads): at
// 100,000 messages four arrays of 800 KB, which on the heap were ~7 MB
// (with hugeMake's slack) that started a collection during the load.
func (s *shard) readIDs(r *snapReader) (spare []*entry, err error) {
	n := r.count(8)
	ids, offs, err := r.strings(n)
	if err != nil {
		return nil, err
	}
	byID := r.uint32s(n)
	if r.err != nil {
		return nil, r.err
	}
	x := &s.docs
	x.ids, x.offs, x.byID = ids, offs, byID
	r.check(func() error {
		if !sortedPermutation(byID, x.fileID) {
			return fmt.Errorf("%w: ids not sorted or repeated", errSnapshot)
		}
		return nil
	})
	block := offMake[*entry](&s.off, 4*n, 0)
	x.file, spare = block[:n:n], block[n:n]
	return spare, nil
}

// readRows restores the vector index but its chunks (mapChunks): slots[i]
// is the entry of row i. It reports whether the column blocks follow the
// chunks.
func (s *shard) readRows(r *snapReader, dims int, slots []*entry) (bool, error) {
	rows := r.count(4)
	if r.err != nil {
		return false, r.err
	}
	if rows != len(slots) || (rows > 0 && dims == 0) {
		return false, fmt.Errorf("%w: %d vector rows for %d slots", errSnapshot, rows, len(slots))
	}
	if rows == 0 {
		return false, nil
	}
	for i, e := range slots {
		if e == nil {
			return false, fmt.Errorf("%w: vector slot %d unused", errSnapshot, i+1)
		}
	}
	x := newVecIndex(dims)
	x.zeros = int(r.i64())
	x.signed = r.u32() == 1
	cols := r.u32()
	x.scales = r.float32s(rows) // in the mapping: 400 KB copied were ~100 faults at 100,000 messages
	x.ents = slots
	if r.err == nil && (x.zeros < 0 || x.zeros > rows*dims || cols > 1) {
		r.err = fmt.Errorf("%w: %d zero components, columns %d", errSnapshot, x.zeros, cols)
	}
	s.vx = x
	return cols == 1, r.err
}

// mapChunks maps the vector part of sf into s.vx's slabs (vp.chunkBytes
// each) and, when it holds them, its column blocks (ready for searches),
// checking that it holds exactly those of the index's rows. The column
// blocks pf mapped already (prefetchCols) are adopted as they are.
func (s *shard) mapChunks(sf *snapFile, vp vecPart, pf *colPrefetch) error {
	x := s.vx
	n := (x.len() + chunkRows - 1) / chunkRows
	var colBytes int64
	if vp.cols {
		colBytes = int64(x.colBytes())
	}
	if sf.vecOff+int64(n)*(vp.chunkBytes+colBytes) != sf.size-snapFooter {
		return fmt.Errorf("%w: vector part of %d bytes for %d chunks", errSnapshot, sf.size-snapFooter-sf.vecOff, n)
	}
	for c := range n {
		sl, err := mapSlab(sf, sf.vecOff+int64(c)*vp.chunkBytes, vp.chunkBytes, x)
		if err != nil {
			return err
		}
		x.chunks = append(x.chunks, sl)
		x.addColChunk()
		if colBytes == 0 {
			continue
		}
		cc := x.cols[c]
		if cc.mem = pf.block(c, n, colBytes, sf, x); cc.mem == nil {
			if cc.mem, err = mapSlab(sf, sf.vecOff+int64(n)*vp.chunkBytes+int64(c)*colBytes, colBytes, x); err != nil {
				return err
			}
		}
		cc.ready.Store(true)
		x.colsBuilt.Add(1)
	}
	if x != nil && !x.signed {
		x.maybeSign() // an index that became dense by the catch-up is signed at its next put
	}
	return nil
}

// mapSlab maps n bytes of sf from off into a slab of x that reads its
// file while clean (slab.fileBacked).
func mapSlab(sf *snapFile, off, n int64, x *vecIndex) (*slab, error) {
	mem, fromFile, err := mapPrivate(sf.f, off, int(n))
	if err != nil {
		return nil, fmt.Errorf("recall: map snapshot: %w", err)
	}
	sl := adoptSlab(mem, x)
	if fromFile {
		sl.file, sl.off = sf.sh.hold(), off
	}
	return sl, nil
}

// detachFile makes s (caller holds mu for writing) stop using the snapshot
// file it was loaded from: its mapped slabs (the messages part, the vector
// chunks and column blocks) are copied into anonymous memory at the same addresses, and the
// file is released. Index.Remove calls it on a shard that held an erased
// message: the file is deleted, and a deleted file stays on disk as long
// as a mapping refers to it, erased bytes included.
func (s *shard) detachFile() error {
	var slabs []*slab
	if s.text != nil {
		slabs = append(slabs, s.text.chunks...)
	}
	if s.vx != nil {
		slabs = append(slabs, s.vx.chunks...)
		for _, cc := range s.vx.cols {
			if cc.ready.Load() {
				slabs = append(slabs, cc.mem)
			}
		}
	}
	for _, sl := range slabs {
		if err := sl.detach(); err != nil {
			return fmt.Errorf("recall: detach snapshot: %w", err)
		}
	}
	s.stamp.release() // nothing maps the file any more
	s.stamp = nil
	return nil
}
