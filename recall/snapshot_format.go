package recall

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"time"
	"unsafe"
)

// The shard snapshot's file format (snapshot.go says when it is written and
// read). Little-endian throughout:
//
//	magic "mnemosnp", format version (u32)
//	header: resource, embedder id, dims (u32), analyser (AnalyzerName)
//	BM25 statistics: n, total length (i64), terms (u32 count, then each
//	  term and its document frequency)
//	threads (u32 count), each: id, its messages (u32 count) in seq order,
//	  each: id, seq, role, name, content, metadata (JSON, empty for none),
//	  created (unix s, ns), vector slot (i32, −1 for none), term ids;
//	  then the thread's vector sum (topic.go: count, then its float64s)
//	damaged ids (u32 count, then each)
//	vectors: rows (u32), scales (f32 each), int8 codes (rows × stride),
//	  float32 values (rows × dims)
//	CRC-32C (Castagnoli) of every byte before it (u32)
//
// Strings are a u32 length and their bytes. A file whose checksum, magic,
// version, header or structure does not match is never used (errSnapshot).
const (
	snapMagic   = "mnemosnp"
	snapVersion = 1
)

// errSnapshot reports a snapshot file that cannot be used (damaged, of
// another version, resource, embedder or analyser); the shard is built
// from the Source instead and the file rewritten.
var errSnapshot = errors.New("recall: unusable shard snapshot")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapWriter encodes a snapshot into w, summing its CRC-32C.
type snapWriter struct {
	w   *bufio.Writer
	crc hash.Hash32
	err error
	b   [8]byte
}

func newSnapWriter(w io.Writer) *snapWriter {
	crc := crc32.New(castagnoli)
	return &snapWriter{w: bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<20), crc: crc}
}

func (sw *snapWriter) bytes(b []byte) {
	if sw.err == nil {
		_, sw.err = sw.w.Write(b)
	}
}

func (sw *snapWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(sw.b[:4], v)
	sw.bytes(sw.b[:4])
}

func (sw *snapWriter) i64(v int64) {
	binary.LittleEndian.PutUint64(sw.b[:], uint64(v))
	sw.bytes(sw.b[:])
}

func (sw *snapWriter) str(s string) {
	sw.u32(uint32(len(s)))
	if sw.err == nil {
		_, sw.err = sw.w.WriteString(s)
	}
}

// raw writes the bytes of a slice of fixed-size numbers in little-endian
// order.
func (sw *snapWriter) raw(p unsafe.Pointer, n int) {
	if n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(p), n)
	if littleEndian {
		sw.bytes(b)
		return
	}
	for i := 0; i < n; i += 4 { // every raw value here is 4 bytes wide
		sw.bytes([]byte{b[i+3], b[i+2], b[i+1], b[i]})
	}
}

// finish flushes the encoding and appends the checksum.
func (sw *snapWriter) finish() error {
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	if sw.err != nil {
		return sw.err
	}
	binary.LittleEndian.PutUint32(sw.b[:4], sw.crc.Sum32())
	sw.bytes(sw.b[:4])
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	return sw.err
}

// littleEndian reports the host's byte order: raw copies of numbers need
// no conversion on little-endian hosts.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// writeSnapshot encodes s (caller holds s.mu for reading) into w.
func (s *shard) writeSnapshot(w io.Writer, embedder string) error {
	sw := newSnapWriter(w)
	sw.bytes([]byte(snapMagic))
	sw.u32(snapVersion)
	sw.str(s.resource)
	sw.str(embedder)
	dims := 0
	if s.vx != nil {
		dims = s.vx.dims
	}
	sw.u32(uint32(dims))
	sw.str(AnalyzerName)
	remap := s.writeStats(sw)
	if err := s.writeThreads(sw, remap); err != nil {
		return err
	}
	ids := s.damagedIDs()
	sw.u32(uint32(len(ids)))
	for _, id := range ids {
		sw.str(id)
	}
	s.vx.writeRows(sw)
	return sw.finish()
}

// writeStats writes the statistics and the terms that some message holds,
// renumbered: the shard keeps the ids of terms whose messages were all
// removed, and an erased message's words must not reach the file. It
// returns the new id of each old one.
func (s *shard) writeStats(sw *snapWriter) []uint32 {
	sw.i64(int64(s.stats.n))
	sw.i64(s.stats.totalLen)
	terms := make([]string, len(s.stats.df))
	for t, id := range s.stats.ids {
		terms[id] = t
	}
	remap := make([]uint32, len(terms))
	live := 0
	for id, df := range s.stats.df {
		if df > 0 {
			remap[id] = uint32(live)
			live++
		}
	}
	sw.u32(uint32(live))
	for id, t := range terms {
		if s.stats.df[id] > 0 {
			sw.str(t)
			sw.u32(uint32(s.stats.df[id]))
		}
	}
	return remap
}

func (s *shard) writeThreads(sw *snapWriter, remap []uint32) error {
	sw.u32(uint32(len(s.threads)))
	var buf []uint32
	for id, th := range s.threads {
		sw.str(id)
		sw.u32(uint32(len(th)))
		for _, e := range th {
			buf = buf[:0]
			for _, t := range e.terms {
				buf = append(buf, remap[t])
			}
			if err := writeEntry(sw, e, buf); err != nil {
				return err
			}
		}
		writeTopic(sw, s.topics[id])
	}
	return nil
}

// writeTopic writes a thread's vector sum (topic.go): its count, then
// its values (none for a thread without vectors). The sum is kept as it
// is, with the rounding of the shard's history, not recomputed.
func writeTopic(sw *snapWriter, t *topic) {
	if t == nil || t.n <= 0 {
		sw.u32(0)
		return
	}
	sw.u32(uint32(t.n))
	sw.u32(uint32(len(t.sum)))
	for _, x := range t.sum {
		sw.i64(int64(math.Float64bits(x)))
	}
}

// readTopic reads what writeTopic wrote, nil for none.
func readTopic(r *snapReader) *topic {
	n := int(r.u32())
	if n == 0 || r.err != nil {
		return nil
	}
	t := &topic{n: n, sum: make([]float64, r.count(8))}
	for i := range t.sum {
		t.sum[i] = math.Float64frombits(uint64(r.i64()))
	}
	return t
}

// writeEntry writes e with its term ids renumbered (terms).
func writeEntry(sw *snapWriter, e *entry, terms []uint32) error {
	d := &e.doc
	sw.str(d.ID)
	sw.i64(d.Seq)
	sw.str(d.Role)
	sw.str(d.Name)
	sw.str(d.Content)
	var md []byte
	if len(d.Metadata) > 0 {
		var err error
		if md, err = json.Marshal(d.Metadata); err != nil {
			return fmt.Errorf("recall: snapshot metadata of %s: %w", d.ID, err)
		}
	}
	sw.str(string(md))
	sw.i64(d.CreatedAt.Unix())
	sw.u32(uint32(d.CreatedAt.Nanosecond()))
	sw.u32(uint32(int32(e.vslot - 1)))
	sw.u32(uint32(len(terms)))
	if len(terms) > 0 {
		sw.raw(unsafe.Pointer(&terms[0]), 4*len(terms))
	}
	return nil
}

// writeRows writes the index's rows (none for a nil index).
func (x *vecIndex) writeRows(sw *snapWriter) {
	rows := x.len()
	sw.u32(uint32(rows))
	if rows == 0 {
		return
	}
	sw.raw(unsafe.Pointer(&x.scales[0]), 4*rows)
	for i := 0; i < rows; i++ {
		c := x.code(i)
		sw.bytes(unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), x.stride))
	}
	for i := 0; i < rows; i++ {
		v := x.vec(i)
		sw.raw(unsafe.Pointer(&v[0]), 4*x.dims)
	}
}

// snapReader decodes a snapshot held in memory; every read is bounds
// checked (a file that passed its checksum may still be of another build).
type snapReader struct {
	b   []byte
	off int
	err error
	// drop gives back the pages before an offset (mapFile); dropped is
	// where the pages still resident begin. A dropped page read again
	// faults in from the page cache: the bytes stay valid until release.
	drop    func(lo, hi int)
	dropped int
}

// dropWindow is how many bytes read the reader keeps mapped.
const dropWindow = 8 << 20

func (r *snapReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		if r.err == nil {
			r.err = fmt.Errorf("%w: truncated at byte %d", errSnapshot, r.off)
		}
		return nil
	}
	if r.drop != nil && r.off-r.dropped >= dropWindow {
		r.drop(r.dropped, r.off)
		r.dropped = r.off
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

// uint32sInto decodes n little-endian u32 values into dst.
func (r *snapReader) uint32sInto(dst []uint32) {
	b := r.take(4 * len(dst))
	if b == nil || len(dst) == 0 {
		return
	}
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(b)), b)
		return
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
}

// float32sInto decodes len(dst) little-endian float32 values into dst.
func (r *snapReader) float32sInto(dst []float32) {
	b := r.take(4 * len(dst))
	if b == nil || len(dst) == 0 {
		return
	}
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(b)), b)
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// checkSnapshot verifies b's magic, version and checksum and returns the
// reader positioned after the version, over the bytes before the checksum.
func checkSnapshot(b []byte, drop func(lo, hi int)) (*snapReader, error) {
	if len(b) < len(snapMagic)+8 || string(b[:len(snapMagic)]) != snapMagic {
		return nil, fmt.Errorf("%w: not a snapshot", errSnapshot)
	}
	body := b[:len(b)-4]
	var sum uint32
	for lo := 0; lo < len(body); lo += dropWindow {
		hi := min(lo+dropWindow, len(body))
		sum = crc32.Update(sum, castagnoli, body[lo:hi])
		drop(lo, hi)
	}
	if sum != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errSnapshot)
	}
	r := &snapReader{b: body, off: len(snapMagic), drop: drop}
	if v := r.u32(); v != snapVersion {
		return nil, fmt.Errorf("%w: format version %d, want %d", errSnapshot, v, snapVersion)
	}
	return r, nil
}

// readSnapshot fills s (reset, caller holds mu) from the snapshot in b,
// which must be of s's resource, embedder emb and the current analyser,
// giving back the pages read as it goes (drop, see mapFile). It returns
// the messages that have no vector.
func (s *shard) readSnapshot(b []byte, drop func(lo, hi int), emb Embedder) ([]string, error) {
	r, err := checkSnapshot(b, drop)
	if err != nil {
		return nil, err
	}
	res, embID, dims, analyser := r.str(), r.str(), int(r.u32()), r.str()
	switch {
	case r.err != nil:
		return nil, r.err
	case res != s.resource || embID != emb.ID() || analyser != AnalyzerName || (dims != 0 && dims != emb.Dims()):
		return nil, fmt.Errorf("%w: of resource %q, embedder %s/%d, analyser %s", errSnapshot, res, embID, dims, analyser)
	}
	if err := s.readStats(r); err != nil {
		return nil, err
	}
	slots, vectorless, err := s.readThreads(r)
	if err != nil {
		return nil, err
	}
	for n := r.count(4); n > 0 && r.err == nil; n-- {
		if s.damaged == nil {
			s.damaged = map[string]bool{}
		}
		s.damaged[r.str()] = true
	}
	if err := s.readRows(r, dims, slots); err != nil {
		return nil, err
	}
	if r.err == nil && r.off != len(r.b) {
		r.err = fmt.Errorf("%w: %d bytes left over", errSnapshot, len(r.b)-r.off)
	}
	if r.err == nil && (s.stats.n != len(s.docs) || s.stats.totalLen != s.termCount()) {
		r.err = fmt.Errorf("%w: statistics do not match the messages", errSnapshot)
	}
	return vectorless, r.err
}

// termCount returns the analysed terms of all messages (caller holds mu).
func (s *shard) termCount() int64 {
	var n int64
	for _, e := range s.docs {
		n += int64(len(e.terms))
	}
	return n
}

func (s *shard) readStats(r *snapReader) error {
	s.stats.n = int(r.i64())
	s.stats.totalLen = r.i64()
	n := r.count(8)
	s.stats.ids = make(map[string]uint32, n)
	s.stats.df = make([]int, n)
	for id := 0; id < n && r.err == nil; id++ {
		s.stats.ids[r.str()] = uint32(id)
		s.stats.df[id] = int(r.u32())
	}
	if r.err == nil && len(s.stats.ids) != n {
		r.err = fmt.Errorf("%w: repeated terms", errSnapshot)
	}
	return r.err
}

// readThreads reads the messages; it returns the entries by vector slot
// and the ids of the messages without one.
func (s *shard) readThreads(r *snapReader) (slots []*entry, vectorless []string, err error) {
	strs := map[string]string{} // roles and names, shared
	intern := func(b []byte) string {
		if v, ok := strs[string(b)]; ok {
			return v
		}
		v := string(b)
		strs[v] = v
		return v
	}
	for nt := r.count(8); nt > 0 && r.err == nil; nt-- {
		thread := r.str()
		n := r.count(48)
		ents := make([]entry, n)
		th := make([]*entry, n)
		for i := 0; i < n && r.err == nil; i++ {
			e := &ents[i]
			if err := s.readEntry(r, e, thread, intern); err != nil {
				return nil, nil, err
			}
			if i > 0 {
				if e.doc.Seq <= th[i-1].doc.Seq {
					return nil, nil, fmt.Errorf("%w: thread %q out of seq order", errSnapshot, thread)
				}
				e.prev, th[i-1].next = th[i-1], e
			}
			th[i] = e
			if _, dup := s.docs[e.doc.ID]; dup {
				return nil, nil, fmt.Errorf("%w: message %q twice", errSnapshot, e.doc.ID)
			}
			s.docs[e.doc.ID] = e
			if e.vslot == 0 {
				vectorless = append(vectorless, e.doc.ID)
			}
			if e.vslot > len(r.b)/4 {
				return nil, nil, fmt.Errorf("%w: vector slot of %q out of range", errSnapshot, e.doc.ID)
			}
			if e.vslot > 0 {
				for len(slots) < e.vslot {
					slots = append(slots, nil)
				}
				if slots[e.vslot-1] != nil {
					return nil, nil, fmt.Errorf("%w: vector slot %d twice", errSnapshot, e.vslot)
				}
				slots[e.vslot-1] = e
			}
		}
		if r.err != nil {
			return nil, nil, r.err
		}
		if _, dup := s.threads[thread]; dup || n == 0 {
			return nil, nil, fmt.Errorf("%w: thread %q twice or empty", errSnapshot, thread)
		}
		s.threads[thread] = th
		for _, e := range th {
			s.post.add(e) // the ords of the thread are known: its neighbours'
		}
		if t := readTopic(r); t != nil {
			if s.topics == nil {
				s.topics = map[string]*topic{}
			}
			s.topics[thread] = t
		}
	}
	return slots, vectorless, r.err
}

func (s *shard) readEntry(r *snapReader, e *entry, thread string, intern func([]byte) string) error {
	d := &e.doc
	d.ID, d.ThreadID, d.ResourceID = r.str(), thread, s.resource
	d.Seq = r.i64()
	d.Role, d.Name = intern(r.bytesOf()), intern(r.bytesOf())
	content := r.bytesOf()
	if md := r.bytesOf(); len(md) > 0 {
		if err := json.Unmarshal(md, &d.Metadata); err != nil {
			return fmt.Errorf("%w: metadata of %q: %v", errSnapshot, d.ID, err)
		}
	}
	sec, nsec := r.i64(), r.u32()
	d.CreatedAt = time.Unix(sec, int64(nsec)).UTC()
	e.vslot = int(int32(r.u32())) + 1
	nterms := r.count(4)
	if r.err != nil {
		return r.err
	}
	d.Content = s.text.bytesString(content)
	// The answer types are not in the file: a word scan of the text, as
	// putDoc does (answertype.go).
	e.atypes = answerBits(d.Text())
	s.countTypes(e.atypes, 1)
	terms := s.text.uint32Slice(nterms)
	r.uint32sInto(terms)
	for _, t := range terms {
		if int(t) >= len(s.stats.df) {
			return fmt.Errorf("%w: term id %d of %q out of range", errSnapshot, t, d.ID)
		}
	}
	e.terms = terms
	e.ord = s.ords
	s.ords++
	if e.vslot < 0 {
		return fmt.Errorf("%w: vector slot of %q", errSnapshot, d.ID)
	}
	return r.err
}

// readRows restores the vector index: slots[i] is the entry of row i.
func (s *shard) readRows(r *snapReader, dims int, slots []*entry) error {
	rows := r.count(4)
	if r.err != nil {
		return r.err
	}
	if rows != len(slots) || (rows > 0 && dims == 0) {
		return fmt.Errorf("%w: %d vector rows for %d slots", errSnapshot, rows, len(slots))
	}
	if rows == 0 {
		return nil
	}
	for i, e := range slots {
		if e == nil {
			return fmt.Errorf("%w: vector slot %d unused", errSnapshot, i+1)
		}
	}
	x := newVecIndex(dims)
	s.vx = x
	x.scales = make([]float32, rows)
	r.float32sInto(x.scales)
	x.ents = slots
	for c := 0; c*chunkRows < rows; c++ {
		x.chunks = append(x.chunks, newSlab(x.chunkBytes(), x))
	}
	for i := 0; i < rows && r.err == nil; i++ {
		c := x.code(i)
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), x.stride), r.take(x.stride))
	}
	for i := 0; i < rows && r.err == nil; i++ {
		r.float32sInto(x.vec(i))
		x.zeros += zeroCount(x.vec(i))
	}
	x.maybeSign() // signs are derived, not stored (vecsigns.go)
	return r.err
}
