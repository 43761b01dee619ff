package recall

import (
	"encoding/json"
	"fmt"
	"unsafe"
)

// The messages' columns of a snapshot (format 9; snapshot_format.go):
// each message's fixed-size fields in one record by ord, its content,
// metadata and term ids in three regions of their own, found by offsets.
// The load reads the records and offsets in order, where they lie,
// instead of walking every message's variable-length fields interleaved
// with the contents (issue 14: their first touches, a cache miss or two
// per message, were most of the ~20 ms the entries took at 100,000
// messages).

// snapMsg is one message's record in the messages part, as it is in
// memory (little-endian, no pointers): read in place.
type snapMsg struct {
	seq    int64
	sec    int64  // created, Unix seconds
	nsec   uint32 // and nanoseconds
	vslot  int32  // the vector slot, −1 for none
	role   uint32 // index into the roles' and names' table
	name   uint32
	atypes uint8
	_      [7]byte
}

// snapMsgSize is the size of a record in the file.
const snapMsgSize = int(unsafe.Sizeof(snapMsg{}))

// msgColumns are the messages' columns read from a snapshot: the
// records, the table of roles and names, and the contents, metadata and
// term ids with their offsets by ord (each n+1, checked ascending within
// their region).
type msgColumns struct {
	recs                  []snapMsg
	names                 []string // on the heap: a hit's role and name outlive the shard
	content, meta         []byte
	contentOffs, metaOffs []int64
	termOffs              []int64
	terms                 []uint32
}

// writeMsgColumns writes the messages of the threads in order (see the
// format) and returns the postings lists of the live terms, renumbered by
// remap, by the ords the load gives the messages. It streams: a pass over
// the messages per column, nothing of the messages' size held but the
// lists.
func (s *shard) writeMsgColumns(sw *snapWriter, order []string, remap []uint32, live int) ([][]uint32, error) {
	each := s.inFileOrder(order)
	var table []string
	index := map[string]uint32{}
	at := func(v string) uint32 {
		i, ok := index[v]
		if !ok {
			i = uint32(len(table))
			index[v] = i
			table = append(table, v)
		}
		return i
	}
	var rec snapMsg
	sw.pad(8)
	each(func(e *entry) {
		d := &e.doc
		rec = snapMsg{seq: d.Seq, sec: d.CreatedAt.Unix(), nsec: uint32(d.CreatedAt.Nanosecond()),
			vslot: int32(e.vslot - 1), role: at(d.Role), name: at(d.Name), atypes: e.atypes}
		sw.raw(unsafe.Pointer(&rec), snapMsgSize)
	})
	sw.u32(uint32(len(table)))
	sw.strings(table)
	var err error
	sw.region(each, true, func(e *entry) []byte {
		return unsafe.Slice(unsafe.StringData(e.doc.Content), len(e.doc.Content))
	})
	sw.region(each, false, func(e *entry) []byte {
		md, merr := metadataJSON(&e.doc)
		if merr != nil && err == nil {
			err = merr
		}
		return md
	})
	if err != nil {
		return nil, err
	}
	return sw.terms(each, remap, live), sw.err
}

// inFileOrder returns a function calling fn with each message of the
// threads in order: by the ords the load gives them.
func (s *shard) inFileOrder(order []string) func(fn func(*entry)) {
	return func(fn func(*entry)) {
		for _, id := range order {
			for _, e := range s.threads[id] {
				fn(e)
			}
		}
	}
}

// region writes the offsets, then the bytes, of item(e) for each e (the
// contents' and metadata's layout: zero padding to a multiple of 8 bytes,
// N+1 i64 offsets from 0, the bytes), the bytes as a region checked by
// block when checked (the contents: snapshot_blocks.go).
func (sw *snapWriter) region(each func(func(*entry)), checked bool, item func(*entry) []byte) {
	sw.pad(8)
	var at int64
	sw.i64(0)
	each(func(e *entry) {
		at += int64(len(item(e)))
		sw.i64(at)
	})
	if checked {
		sw.regions.cFrom = sw.regionStart()
	}
	each(func(e *entry) { sw.bytes(item(e)) })
	if checked {
		sw.regions.cTo = sw.regionEnd()
	}
}

// terms writes the messages' term ids renumbered by remap (N+1 i64
// offsets in ids, then zero padding to a multiple of 4 bytes and the
// u32s) and returns the postings lists of the live terms by ord.
func (sw *snapWriter) terms(each func(func(*entry)), remap []uint32, live int) [][]uint32 {
	sw.pad(8)
	var at int64
	sw.i64(0)
	each(func(e *entry) {
		at += int64(len(e.terms))
		sw.i64(at)
	})
	sw.pad(4)
	sw.regions.tFrom = sw.regionStart()
	defer func() { sw.regions.tTo = sw.regionEnd() }()
	lists := make([][]uint32, live)
	var buf []uint32
	ord := uint32(0)
	each(func(e *entry) {
		buf = buf[:0]
		for _, t := range e.terms {
			buf = append(buf, remap[t])
		}
		if len(buf) > 0 {
			sw.raw(unsafe.Pointer(&buf[0]), 4*len(buf))
		}
		termFreqs(buf, func(t uint32, tf int) {
			lists[t] = append(lists[t], ord<<tfBits|uint32(min(tf, tfMax)))
		})
		ord++
	})
	return lists
}

// metadataJSON returns d's metadata as JSON, nil for none.
func metadataJSON(d *Doc) ([]byte, error) {
	if len(d.Metadata) == 0 {
		return nil, nil
	}
	md, err := json.Marshal(d.Metadata)
	if err != nil {
		return nil, fmt.Errorf("recall: snapshot metadata of %s: %w", d.ID, err)
	}
	return md, nil
}

// readMsgColumns reads the columns of the n messages (see the format):
// every offset is checked once here, every role and name as the entries
// are made (entryReader.entry), the contents and term ids by block on
// first use (snapshot_blocks.go: each term id's range with its block).
func (s *shard) readMsgColumns(r *snapReader, n int) (*msgColumns, error) {
	c := &msgColumns{recs: inPlace[snapMsg](r.aligned(8, snapMsgSize*n), n)}
	k := r.count(4)
	blob, offs, err := r.strings(k)
	if err != nil {
		return nil, err
	}
	c.names = make([]string, k)
	for i := range k {
		c.names[i] = string([]byte(blob[offs[i]:offs[i+1]]))
	}
	s.off.hold(c.names) // the entries lie off the heap (offheap.go)
	if c.contentOffs, c.content, err = r.region(n, 1); err != nil {
		return nil, err
	}
	r.regions.cFrom, r.regions.cTo = int64(r.off-len(c.content)), int64(r.off)
	if s.contentSums, err = newBlockSums(c.content, r.uint32s(blocksOf(len(c.content))), false, 0); err != nil {
		return nil, err
	}
	if c.metaOffs, c.meta, err = r.region(n, 1); err != nil {
		return nil, err
	}
	var ids []byte
	if c.termOffs, ids, err = r.region(n, 4); err != nil {
		return nil, err
	}
	r.regions.tFrom, r.regions.tTo = int64(r.off-len(ids)), int64(r.off)
	c.terms = inPlace[uint32](ids, len(ids)/4)
	// Nothing reads a term id before the load returns: each block's ids
	// are checked against the terms with its sum, on first use.
	if s.termSums, err = newBlockSums(ids, r.uint32s(blocksOf(len(ids))), true, len(s.stats.df)); err != nil {
		return nil, err
	}
	return c, r.err
}

// region reads n+1 i64 offsets (after zero padding to a multiple of 8
// bytes) of items of size bytes each, checked to start at 0 and ascend,
// then the items (after padding to a multiple of size).
func (r *snapReader) region(n, size int) ([]int64, []byte, error) {
	offs := inPlace[int64](r.aligned(8, 8*(n+1)), n+1)
	if r.err != nil {
		return nil, nil, r.err
	}
	last := offs[n]
	if offs[0] != 0 || last < 0 || last > int64(len(r.b)-r.off)/int64(size) {
		return nil, nil, fmt.Errorf("%w: offsets", errSnapshot)
	}
	for i := range n {
		if offs[i] > offs[i+1] {
			return nil, nil, fmt.Errorf("%w: offsets", errSnapshot)
		}
	}
	b := r.aligned(size, size*int(last))
	return offs, b, r.err
}

// fields returns message o's content (in the mapping), metadata JSON and
// term ids (capacity their own: an append copies).
func (c *msgColumns) fields(o int) (content string, meta []byte, terms []uint32) {
	a, b := c.termOffs[o], c.termOffs[o+1]
	return mapped(c.content[c.contentOffs[o]:c.contentOffs[o+1]]), c.meta[c.metaOffs[o]:c.metaOffs[o+1]], c.terms[a:b:b]
}
