package recall

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// The shard snapshot's file format (snapshot.go says when it is written and
// read; snapshot_read.go reads it). Numbers are little-endian; snapshots
// are written and read on little-endian hosts only (the vector chunks are
// the index's memory as it is). Two parts, each with its own CRC-32C
// (Castagnoli):
//
// The messages part, from byte 0, verified before the shard serves but
// for the bytes of its contents and term ids (v10), whose 4 KiB blocks
// each have a CRC-32C of their own, verified on first use
// (snapshot_blocks.go):
//
//	magic "mnemosnp", format version (u32)
//	header: resource, embedder id, dims (u32), analyser (AnalyzerName),
//	  answer-type rules (shard.rules: answerRules and the time zone), chunkRows (u32), chunk bytes (i64)
//	BM25 statistics: n, total length (i64), terms (v8; laid out as the
//	  message ids below, used in place by termDict): count T (u32), zero
//	  padding to a multiple of 4 bytes, T+1 u32 offsets, the terms' bytes
//	  (u32 length, then the bytes: term id i is bytes[offset i, offset
//	  i+1)); zero padding, T u32 document frequencies by term id; T u32:
//	  the term ids by ascending term (each once)
//	message ids (v4), in the order of the messages below (their ords):
//	  count N (u32), zero padding to a multiple of 4 bytes, N+1 u32
//	  offsets (the first 0, ascending), the ids' bytes (u32 length, then
//	  the bytes: id o is bytes[offset o, offset o+1)); then zero padding
//	  to a multiple of 4 bytes and N u32: the ords by ascending id (each
//	  once; docIndex searches them in place)
//	per-ord arrays (v9; postings.go), by the messages' ords: zero padding
//	  to a multiple of 8 bytes, N i64 creation times (Unix ns, or noWhen),
//	  N relative dates (v6, reldates.go: the in-memory dayRange, 8 bytes:
//	  first day as i32 days since 1970-01-01, u16 number of days, 0 for
//	  none, 2 zero bytes), N i32 term counts, N u8 months of the creation
//	  time in the shard's zone; used in place by the postings
//	the messages' columns (v9, by ord; snapshot_msgs.go): zero padding
//	  to a multiple of 8 bytes, N records of snapMsgSize bytes (seq,
//	  created unix s, ns, vector slot (−1 for none), role and name as
//	  indexes into the table that follows, answer types); the roles' and
//	  names' table (u32 count, laid out as the message ids); the contents
//	  (zero padding to a multiple of 8 bytes, N+1 i64 offsets from 0,
//	  ascending, then the bytes: content o is bytes[offset o, offset
//	  o+1); v10: then zero padding to a multiple of 4 bytes and the
//	  CRC-32C of each 4 KiB block of the bytes, u32 each); the metadata
//	  (JSON, empty for none) as the contents but for the blocks' sums;
//	  the term ids (N+1 i64 offsets in ids, then zero padding to a
//	  multiple of 4 bytes and the u32s, then (v10) the CRC-32C of each
//	  4 KiB block of the u32s' bytes, u32 each)
//	threads (u32 count), each: id, its number of messages (u32: the next
//	  ords, in seq order), then its vector sum (topic.go: count, then for
//	  a count above 0 its dimensions (u32), zero padding to a multiple of
//	  8 bytes (v9) and its float64s, used in place)
//	postings (postings.go; v11), T lists by term id: zero padding to a
//	  multiple of 4 bytes, T+1 u32 offsets (in u32s, the first 0,
//	  ascending), then every list's entries one after the other (list t
//	  is the u32s [offset t, offset t+1)), each ord<<tfBits | tf, the
//	  ords numbering the messages in file order, strictly ascending in a
//	  list. (Up to v10 each list was a u32 count, zero padding to a
//	  multiple of 4 bytes and its u32s: the load read every count, ~1,400
//	  pages of lists spread over 5.7 MB at 100,000 messages, on the first
//	  search's path; issue 14.)
//	damaged ids (u32 count, then each)
//	vectors: rows (u32), zero components (i64), signed (u32: the sign rows
//	  are set), columns (u32, v5: 1 when the column blocks follow the
//	  chunks), zero padding to a multiple of 4 bytes (v8), scales (f32
//	  each, used in place)
//	regions (v10): zero padding to a multiple of 8 bytes, then four i64:
//	  the offsets in the file of the contents' bytes (from, to) and of
//	  the term ids' bytes (from, to); the part's CRC-32C covers every
//	  byte of the part but those two ranges
//
// The vector part, from the first multiple of snapAlign after the
// messages part (zero padding between): the vecIndex's chunks, each
// chunkBytes of its slab as they are in memory (int8 codes, float32
// values, sign rows; vecindex.go), the last one's unused rows zero; then,
// for an index of sparse vectors (hash-384: snapColumns), each chunk's
// column-major copy of its codes (veccols.go: dims × chunkRows bytes), so
// that the first sparse query of a loaded shard reads its few columns
// where they lie instead of scanning every code row and transposing
// (issue 14: 16 of the first LoadContext's 60 ms of CPU at 100k). Chunks
// and columns are mapped copy-on-write from the file (slab_unix.go), not
// read: their bytes are verified in the background (snapshot_verify.go).
//
// The footer (snapFooter bytes): the messages part's length (i64), its
// CRC-32C (u32), the vector part's CRC-32C (u32), "mnemoend".
//
// Strings are a u32 length and their bytes. A file whose checksum, magic,
// version, header or structure does not match is never used (errSnapshot).
const (
	snapMagic   = "mnemosnp"
	snapEnd     = "mnemoend"
	snapVersion = 11
	// snapAlign aligns the vector part for mapping with pages of up to 64
	// KiB.
	snapAlign  = 64 << 10
	snapFooter = 24
)

// errSnapshot reports a snapshot file that cannot be used (damaged, of
// another version, resource, embedder or analyser); the shard is built
// from the Source instead and the file rewritten.
var errSnapshot = errors.New("recall: unusable shard snapshot")

// The refusals of a snapshot that a rebuild event tells apart (dropReason);
// every other errSnapshot is damage.
var (
	errSnapChecksum = fmt.Errorf("%w: checksum mismatch", errSnapshot)
	errSnapVersion  = fmt.Errorf("%w: format version", errSnapshot)
	errSnapOther    = fmt.Errorf("%w: written for another resource, embedder, analyser, answer rules or time zone", errSnapshot)
)

// dropReason describes why a snapshot was refused at load, for
// Config.SnapshotDropped: its kind only, never the values the file holds
// (a file in a resource's place may be another resource's: its name,
// threads or messages must not reach this resource's event).
func dropReason(err error) string {
	switch {
	case errors.Is(err, errSnapChecksum):
		return "its checksum did not match at load"
	case errors.Is(err, errSnapVersion):
		return "it is of another format version"
	case errors.Is(err, errSnapOther):
		return "it was written for another resource, embedder, analyser, answer rules or time zone"
	}
	return "it is damaged or truncated"
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// answerRulesVersion numbers the logic of answerBits (answertype.go) and
// relativeDate (reldates.go): snapshots store each message's answer types
// and relative date, so a change to how they are found must bump it
// (TestAnswerRulesPinned fails until it is), and older snapshots are
// rebuilt.
const answerRulesVersion = 2

// docTextVersion numbers the text a message's stored tool calls add to
// its content (WithToolCalls): snapshots store each message's content
// with it and its terms, so a change to it must bump this
// (TestDocTextPinned fails until it is), and older snapshots are rebuilt
// from the Source. 2: the arguments' decoded text,
// not their JSON (1, unnumbered: a word written as JSON escapes,
// "Z\u00fcrich", was not found).
const docTextVersion = 2

// answerRules identifies the rules a snapshot's stored data were made
// with (answerRulesOf of docTextVersion).
var answerRules = answerRulesOf(docTextVersion)

// answerRulesOf identifies the answer-type rules a snapshot's stored types
// were found with: answerRulesVersion and the word lists and question
// patterns of answertype.go; and textVersion, the rules of its stored
// contents' text (version 1, before it was numbered, added nothing).
func answerRulesOf(textVersion int) string {
	h := sha256.New()
	fmt.Fprintf(h, "v%d", answerRulesVersion)
	if textVersion > 1 {
		fmt.Fprintf(h, " text v%d", textVersion)
	}
	for _, set := range []map[string]bool{durationCounts, durationUnits, durationFiller, timeWords, timeAfter, timePeriod, monthVerbs, countWords, monthPreps} {
		words := make([]string, 0, len(set))
		for w := range set {
			words = append(words, w)
		}
		slices.Sort(words)
		fmt.Fprintf(h, "%q", words)
	}
	for _, re := range typeQuestions {
		fmt.Fprintf(h, "%q", re.String())
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// rules is the answer-rules string of s's snapshots: answerRules, and
// the name of the shard's time zone unless it is UTC (the stored relative
// dates are days of that zone), so that a snapshot written in another zone
// is rebuilt while one written in UTC before zones counted still loads.
func (s *shard) rules() string {
	if s.loc == nil || s.loc == time.UTC {
		return answerRules
	}
	return answerRules + " in " + s.loc.String()
}

// snapWriter encodes a snapshot into w, counting its bytes and summing
// their CRC-32C.
type snapWriter struct {
	w    *bufio.Writer
	sink *partSink // the sums (snapshot_blocks.go)
	// regions are the byte ranges of the contents and term ids written
	// (the messages part's trailer).
	regions regions
	n       int64
	err     error
	b       [8]byte
}

func newSnapWriter(w io.Writer) *snapWriter {
	sink := &partSink{}
	return &snapWriter{w: bufio.NewWriterSize(io.MultiWriter(w, sink), 1<<20), sink: sink}
}

func (sw *snapWriter) bytes(b []byte) {
	if sw.err == nil {
		_, sw.err = sw.w.Write(b)
		sw.n += int64(len(b))
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
	sw.bytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// raw writes the n bytes at p (numbers in the host's order: little-endian).
func (sw *snapWriter) raw(p unsafe.Pointer, n int) {
	if n > 0 {
		sw.bytes(unsafe.Slice((*byte)(p), n))
	}
}

// snapZeros is the padding pad writes. A package-level array: a local one
// escapes through the bufio.Writer's Write and cost a 4 KiB heap allocation
// per call (60 MB per 5k-message snapshot in BenchmarkRecallIngest).
var snapZeros [4096]byte

// pad writes zeros up to the next multiple of align.
func (sw *snapWriter) pad(align int64) {
	for sw.n%align != 0 && sw.err == nil {
		sw.bytes(snapZeros[:min(int64(len(snapZeros)), align-sw.n%align)])
	}
}

// cut flushes the encoding and returns the CRC-32C of the bytes since the
// last cut (or the start), starting a new sum.
func (sw *snapWriter) cut() uint32 {
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	sum := sw.sink.sum
	sw.sink.sum = 0
	return sum
}

// littleEndian reports the host's byte order: snapshots are kept only on
// little-endian hosts.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// writeSnapshot encodes s (caller holds s.mu for reading) into w.
func (s *shard) writeSnapshot(w io.Writer, embedder string) error {
	s.soundAll() // no garbled block reaches a new file under good sums
	sw := newSnapWriter(w)
	if err := s.writeMessagesPart(sw, embedder); err != nil {
		return err
	}
	metaEnd, metaCRC := sw.n, sw.cut()
	sw.pad(snapAlign)
	sw.cut()
	s.vx.writeChunks(sw)
	vecCRC := sw.cut()
	sw.i64(metaEnd)
	sw.u32(metaCRC)
	sw.u32(vecCRC)
	sw.bytes([]byte(snapEnd))
	sw.cut()
	return sw.err
}

// writeMessagesPart writes the messages part (see the format above).
func (s *shard) writeMessagesPart(sw *snapWriter, embedder string) error {
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
	sw.str(s.rules())
	sw.u32(chunkRows)
	var cb int64
	if s.vx != nil {
		cb = int64(s.vx.chunkBytes())
	}
	sw.i64(cb)
	remap, live := s.writeStats(sw)
	order := s.writeIDs(sw)
	s.writeOrdArrays(sw, order)
	lists, err := s.writeThreads(sw, order, remap, live)
	if err != nil {
		return err
	}
	sw.writePostings(lists)
	ids := s.damagedIDs()
	sw.u32(uint32(len(ids)))
	for _, id := range ids {
		sw.str(id)
	}
	s.vx.writeRowsMeta(sw)
	sw.writeRegions(sw.regions)
	return sw.err
}

// writeStats writes the statistics and the terms that some message holds,
// renumbered in ascending order: the shard keeps the ids of terms whose
// messages were all removed, and an erased message's words must not reach
// the file — nor their order: ids follow the order in which the messages
// brought their terms in, so the live terms kept in id order spelled out,
// in a row, an erased message's words that other messages also hold. It
// returns the new id of each old one, and how many there are.
func (s *shard) writeStats(sw *snapWriter) ([]uint32, int) {
	sw.i64(int64(s.stats.n))
	sw.i64(s.stats.totalLen)
	terms := make([]string, len(s.stats.df))
	for t, id := range s.stats.ids.all() {
		terms[id] = t
	}
	var ids []int
	for id, df := range s.stats.df {
		if df > 0 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b int) int { return strings.Compare(terms[a], terms[b]) })
	remap := make([]uint32, len(terms))
	live := make([]string, len(ids))
	dfs := make([]uint32, len(ids))
	order := make([]uint32, len(ids)) // sorted already
	for i, id := range ids {
		remap[id] = uint32(i)
		live[i] = terms[id]
		dfs[i] = uint32(s.stats.df[id])
		order[i] = uint32(i)
	}
	sw.u32(uint32(len(live)))
	sw.strings(live)
	sw.uint32s(dfs)
	sw.uint32s(order)
	return remap, len(live)
}

// strings writes ss as offsets and bytes (the message ids' layout:
// snapshot_format.go): zero padding to a multiple of 4 bytes, len(ss)+1
// u32 offsets, then the bytes (u32 length, then the bytes).
func (sw *snapWriter) strings(ss []string) {
	offs := make([]uint32, 0, len(ss)+1)
	var size uint32
	for _, t := range ss {
		offs = append(offs, size)
		size += uint32(len(t))
	}
	sw.uint32s(append(offs, size))
	sw.u32(size)
	for _, t := range ss {
		sw.bytes(unsafe.Slice(unsafe.StringData(t), len(t)))
	}
}

// uint32s writes zero padding to a multiple of 4 bytes, then vs.
func (sw *snapWriter) uint32s(vs []uint32) {
	sw.pad(4)
	if len(vs) > 0 {
		sw.raw(unsafe.Pointer(&vs[0]), 4*len(vs))
	}
}

// writePostings writes the postings lists (v11: the offsets of every
// list, then the lists one after the other; see the format above).
func (sw *snapWriter) writePostings(lists [][]uint32) {
	offs := make([]uint32, 0, len(lists)+1)
	at := uint32(0)
	for _, l := range lists {
		offs = append(offs, at)
		at += uint32(len(l))
	}
	sw.uint32s(append(offs, at))
	for _, l := range lists {
		if len(l) > 0 {
			sw.raw(unsafe.Pointer(&l[0]), 4*len(l))
		}
	}
}

// sortedBy returns the indexes of ss ordered by ascending string.
func sortedBy(ss []string) []uint32 {
	order := make([]uint32, len(ss))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(ss[a], ss[b]) })
	return order
}

// writeThreads writes the messages' columns (snapshot_msgs.go), then the
// threads, and returns the postings lists of the live terms (postings.go)
// as the load numbers the messages: by their order in the file.
func (s *shard) writeThreads(sw *snapWriter, order []string, remap []uint32, live int) ([][]uint32, error) {
	lists, err := s.writeMsgColumns(sw, order, remap, live)
	if err != nil {
		return nil, err
	}
	sw.u32(uint32(len(order)))
	for _, id := range order {
		sw.str(id)
		sw.u32(uint32(len(s.threads[id])))
		writeTopic(sw, s.topics[id])
	}
	return lists, nil
}

// writeIDs writes the message ids (see the format above) and returns the
// threads in the order their messages are numbered: the order writeThreads
// writes them in.
func (s *shard) writeIDs(sw *snapWriter) []string {
	order := make([]string, 0, len(s.threads))
	for id := range s.threads {
		order = append(order, id)
	}
	ids := make([]string, 0, s.docs.len())
	for _, t := range order {
		for _, e := range s.threads[t] {
			ids = append(ids, e.doc.ID)
		}
	}
	sw.u32(uint32(len(ids)))
	sw.strings(ids)
	sw.uint32s(sortedBy(ids))
	return order
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
	sw.pad(8)
	for _, x := range t.sum {
		sw.i64(int64(math.Float64bits(x)))
	}
}

// writeOrdArrays writes the postings' per-ord arrays (v9: see the format
// above) of the messages of the threads in order, numbered as
// writeThreads numbers them, a pass per array: the load uses them where
// they lie instead of computing them from every message (issue 14).
func (s *shard) writeOrdArrays(sw *snapWriter, order []string) {
	each := s.inFileOrder(order)
	sw.pad(8)
	each(func(e *entry) {
		w, _ := ordTime(e, s.post.loc)
		sw.i64(w)
	})
	each(func(e *entry) { // dayRange as in memory, its padding zero
		sw.u32(uint32(e.ref.from))
		sw.u32(uint32(e.ref.n))
	})
	each(func(e *entry) { sw.u32(uint32(len(e.terms))) })
	each(func(e *entry) {
		_, sw.b[0] = ordTime(e, s.post.loc)
		sw.bytes(sw.b[:1])
	})
}

// writeRowsMeta writes the index's rows, zero count, signed flag and
// scales (no rows for a nil index).
func (x *vecIndex) writeRowsMeta(sw *snapWriter) {
	rows := x.len()
	sw.u32(uint32(rows))
	if rows == 0 {
		return
	}
	sw.i64(int64(x.zeros))
	signed := uint32(0)
	if x.signed {
		signed = 1
	}
	sw.u32(signed)
	cols := uint32(0)
	if x.snapColumns() {
		cols = 1
	}
	sw.u32(cols)
	sw.pad(4)
	sw.raw(unsafe.Pointer(&x.scales[0]), 4*rows)
}

// snapColumns reports whether a snapshot of the index holds its column
// blocks: when at least one component in maxZeroShare is zero (the
// sparse vectors whose queries take the column pass; a dense embedder's
// never do).
func (x *vecIndex) snapColumns() bool {
	return x.len() > 0 && x.zeros*maxZeroShare > x.len()*x.dims
}

// colBytes is the size of one column block.
func (x *vecIndex) colBytes() int { return x.dims * chunkRows }

// writeChunks writes the index's slabs as they are (none for a nil
// index), then its column blocks when snapColumns: those not built yet
// are transposed for the file (the index keeps building them as searches
// go).
func (x *vecIndex) writeChunks(sw *snapWriter) {
	if x.len() == 0 {
		return
	}
	for _, c := range x.chunks {
		sw.slab(c, x.chunkBytes())
	}
	if !x.snapColumns() {
		return
	}
	var tmp []int8
	for c, cc := range x.cols {
		if cc.ready.Load() {
			sw.slab(cc.mem, x.colBytes())
			continue
		}
		if tmp == nil {
			tmp = make([]int8, x.colBytes())
		}
		clear(tmp)
		transpose(tmp, x.codes(c, min(chunkRows, x.len()-c*chunkRows)), x.stride, x.dims)
		sw.raw(unsafe.Pointer(&tmp[0]), len(tmp))
	}
}

// slab writes the first n bytes of sl: from its file while it holds the
// file's bytes (its pages stay out of memory), else from memory.
func (sw *snapWriter) slab(sl *slab, n int) {
	if !sl.fileBacked() {
		sw.bytes(sl.mem[:n])
		return
	}
	if sw.err == nil {
		var m int64
		m, sw.err = io.Copy(sw.w, io.NewSectionReader(sl.file.f, sl.off, int64(n)))
		sw.n += m
	}
}
