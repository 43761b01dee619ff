package recall

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"
)

// Decoding a snapshot's messages into the shard's entries (the format:
// snapshot_format.go; readMessages calls readThreads). The threads'
// section is read first (ids, numbers of messages, vector sums), which
// numbers every thread's messages, and the postings that follow it; the
// entries are then made from the
// columns (snapshot_msgs.go) by ord, the threads cut into runs of
// consecutive ords that two goroutines decode at once when the shard is
// large (parallelMin): at 100,000 messages the decoding was ~25 ms on the
// first search's critical path (issue 14), and each entry depends only on
// its own columns and its thread. What is shared (the statistics' sums,
// the answer types' counts, the holds of off-heap pointers, the threads'
// map) is added up per run and merged in ord order
// afterwards, so that the shard is that of one decoding in order. The
// checks of what nothing reads before the load returns (snapReader.later:
// the postings, the orders of ids and terms) and the listing of the
// entries by vector slot (slotsJob) are taken by the same two goroutines.

// parallelMin is the fewest messages whose decoding is split between two
// goroutines (a variable for the tests).
var parallelMin = 1 << 14

// span is one thread of the snapshot: its id and its messages' ords,
// [start, start+n), in seq order.
type span struct {
	id       string
	start, n int
}

// entryReader makes the entries of the snapshot's messages, by ord.
type entryReader struct {
	s   *shard
	c   *msgColumns // the messages' columns (snapshot_msgs.go)
	all []entry     // the entries, by ord
	ths []*entry    // the threads' entries, by ord (nil: each thread makes its own)
}

// entryPart is what the decoding of one run of threads adds up, merged
// into the shard afterwards (entryReader.merge).
type entryPart struct {
	terms int64         // the analysed terms read
	types [numTypes]int // the messages of each answer type
	holds []any         // the metadata maps the entries point to (offheap.go)
	th    [][]*entry    // each thread's entries, by span
	err   error         // the first error of the run
}

// readThreads reads the messages, their threads' vector sums (of dims
// each) and the postings; it returns the entries by vector slot and the
// ids of the messages without one. spare is readIDs' room for the vector
// slots, the postings' entries by ord and the threads' entries.
func (s *shard) readThreads(r *snapReader, dims int, spare []*entry) (slots []*entry, vectorless []string, err error) {
	// One allocation for every entry, off the Go heap (offheap.go), in
	// huge pages; the slots in readIDs' block, sized at once.
	n := len(s.docs.file)
	er := &entryReader{s: s, all: offMake[entry](&s.off, n, n)}
	if cap(spare) >= 3*n { // readIDs' block
		slots, s.post.byOrd, er.ths = spare[:0:n], spare[n:n:2*n], spare[2*n:3*n:3*n]
	} else {
		slots = make([]*entry, 0, n)
	}
	s.post.links(n, &s.off)
	if er.c, err = s.readMsgColumns(r, n); err != nil {
		return nil, nil, err
	}
	spans, err := s.readSpans(r, n, dims)
	if err != nil {
		return nil, nil, err
	}
	if err := s.readPostings(r, n); err != nil {
		return nil, nil, err
	}
	loadMark("decode: columns, threads, postings")
	var vs vecSlots
	parts, err := er.decode(spans, append(r.later, er.slotsJob(slots, len(r.b)/4, &vs)))
	loadMark("decode: entries and checks")
	if err != nil {
		return nil, nil, err
	}
	if err := er.merge(spans, parts); err != nil {
		return nil, nil, err
	}
	return vs.slots, vs.vecless, nil
}

// readSpans reads the threads' section: each thread's id, number of
// messages (the next ords) and vector sum. The numbers must add up to n.
func (s *shard) readSpans(r *snapReader, n, dims int) ([]span, error) {
	nt := r.count(8)
	spans := make([]span, 0, nt)
	at := 0
	for ; nt > 0 && r.err == nil; nt-- {
		id := r.str()
		k := int(r.u32())
		if r.err == nil && (k == 0 || k > n-at) {
			return nil, fmt.Errorf("%w: thread %q empty or of too many messages", errSnapshot, id)
		}
		s.off.hold(id) // the entries name it (offheap.go)
		spans = append(spans, span{id: id, start: at, n: k})
		at += k
		if t := readTopic(r, dims); t != nil {
			if s.topics == nil {
				s.topics = map[string]*topic{}
			}
			s.topics[id] = t
		}
	}
	switch {
	case r.err != nil:
		return nil, r.err
	case at != n:
		return nil, fmt.Errorf("%w: %d messages for %d ids", errSnapshot, at, n)
	}
	return spans, nil
}

// readTopic reads what writeTopic wrote, nil for none: the sum is used in
// place in the mapping (topicAdd changes it in the process's copy of the
// page).
func readTopic(r *snapReader, dims int) *topic {
	n := int(r.u32())
	if n == 0 || r.err != nil {
		return nil
	}
	k := r.count(8)
	if r.err != nil {
		return nil
	}
	if k != dims { // the topic rule indexes the query's vector by the sum's
		r.err = fmt.Errorf("%w: a thread's vector sum of %d dimensions, vectors of %d", errSnapshot, k, dims)
		return nil
	}
	sum := r.float64s(k)
	if r.err != nil {
		return nil
	}
	return &topic{n: n, sum: sum}
}

// decodeRuns is the number of runs a large shard's threads are cut into
// (at thread boundaries, of about as many messages each); two goroutines
// take them in turn, so that the one that shares its core (with the
// messages part's checksum, or another process) takes fewer.
const decodeRuns = 8

// decode makes the entries of the threads spans and runs the checks: when
// there are parallelMin messages or more, the checks and decodeRuns runs
// of threads are taken in turn by two goroutines (the second is waited
// for even when the first panics: nothing writes into the shard after
// decode returns).
func (er *entryReader) decode(spans []span, checks []func() error) ([]entryPart, error) {
	cuts := []int{0, len(spans)}
	if n := len(er.all); n >= parallelMin {
		cuts = cuts[:1]
		for k := 1; k < decodeRuns; k++ {
			i := cuts[len(cuts)-1]
			for i < len(spans) && spans[i].start < k*n/decodeRuns {
				i++
			}
			if i > cuts[len(cuts)-1] && i < len(spans) {
				cuts = append(cuts, i)
			}
		}
		cuts = append(cuts, len(spans))
	}
	parts := make([]entryPart, len(cuts)-1)
	errs := make([]error, len(checks))
	jobs := int32(len(checks) + len(parts))
	var next atomic.Int32
	take := func() {
		for k := next.Add(1) - 1; k < jobs; k = next.Add(1) - 1 {
			if int(k) < len(checks) {
				errs[k] = checks[k]()
				continue
			}
			k -= int32(len(checks))
			er.run(spans[cuts[k]:cuts[k+1]], &parts[k])
		}
	}
	func() {
		if len(parts) > 1 {
			defer goCatch(take)()
		}
		take()
	}()
	for _, pt := range parts {
		if pt.err != nil {
			return nil, pt.err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// run decodes the threads spans into pt.
func (er *entryReader) run(spans []span, pt *entryPart) {
	pt.th = make([][]*entry, 0, len(spans))
	for _, sp := range spans {
		th, err := er.thread(sp, pt)
		if err != nil {
			pt.err = err
			return
		}
		pt.th = append(pt.th, th)
	}
}

// merge adds the runs' parts (of the spans, in order) to the shard.
func (er *entryReader) merge(spans []span, parts []entryPart) error {
	s, i := er.s, 0
	var terms int64
	for k := range parts {
		pt := &parts[k]
		terms += pt.terms
		for t, c := range pt.types {
			s.typeDF[t] += c
		}
		for _, h := range pt.holds {
			s.off.hold(h)
		}
		for _, th := range pt.th {
			id := spans[i].id
			i++
			if _, dup := s.threads[id]; dup {
				return fmt.Errorf("%w: thread %q twice", errSnapshot, id)
			}
			s.threads[id] = th
		}
	}
	s.ords = len(er.all)
	if s.stats.n != s.ords || s.stats.totalLen != terms {
		return fmt.Errorf("%w: statistics do not match the messages", errSnapshot)
	}
	s.docs.n = s.ords
	return nil
}

// thread makes the entries of the thread sp and returns them in seq
// order.
func (er *entryReader) thread(sp span, pt *entryPart) ([]*entry, error) {
	ents := er.all[sp.start : sp.start+sp.n]
	var th []*entry
	if er.ths != nil {
		th = er.ths[sp.start : sp.start+sp.n : sp.start+sp.n]
	} else {
		th = make([]*entry, sp.n)
	}
	for i := range ents {
		e := &ents[i]
		if err := er.entry(e, sp.start+i, sp.id, pt); err != nil {
			return nil, err
		}
		if i > 0 {
			if e.doc.Seq <= th[i-1].doc.Seq {
				return nil, fmt.Errorf("%w: thread %q out of seq order", errSnapshot, sp.id)
			}
			e.prev, th[i-1].next = th[i-1], e
		}
		th[i] = e
	}
	p := &er.s.post
	for _, e := range th { // the ords of the thread are known: its neighbours'
		p.byOrd[e.ord], p.prev[e.ord], p.next[e.ord] = e, ordOf(e.prev), ordOf(e.next)
	}
	return th, nil
}

// entry makes e message o, of thread, from the columns.
func (er *entryReader) entry(e *entry, o int, thread string, pt *entryPart) error {
	s, c := er.s, er.c
	m, p := &c.recs[o], &s.post
	d := &e.doc
	d.ID, d.ThreadID, d.ResourceID = s.docs.fileID(uint32(o)), thread, s.resource
	content, md, terms := c.fields(o)
	if w := p.when[o]; int(m.role) >= len(c.names) || int(m.name) >= len(c.names) || m.vslot < -1 || m.atypes >= 1<<numTypes ||
		m.nsec >= 1e9 || p.ref[o].n > maxRefDays || int(p.lens[o]) != len(terms) || (w != noWhen && w != m.sec*1e9+int64(m.nsec)) {
		return fmt.Errorf("%w: message %q", errSnapshot, d.ID)
	}
	d.Seq, d.Role, d.Name, d.Content = m.seq, c.names[m.role], c.names[m.name], content
	if len(md) > 0 {
		if err := json.Unmarshal(md, &d.Metadata); err != nil {
			return fmt.Errorf("%w: metadata of %q: %v", errSnapshot, d.ID, err)
		}
		pt.holds = append(pt.holds, d.Metadata) // e lies off the heap (offheap.go)
	}
	d.CreatedAt = time.Unix(m.sec, int64(m.nsec)).UTC()
	e.vslot, e.atypes, e.ref = int(m.vslot)+1, m.atypes, p.ref[o]
	for i := range numTypes {
		if e.atypes&(1<<i) != 0 {
			pt.types[i]++
		}
	}
	e.terms = terms
	pt.terms += int64(len(terms))
	e.ord = o
	s.docs.file[o] = e
	return nil
}

// vecSlots is what slotsJob makes: the entries by vector slot and the
// ids of the messages without one, in ord order.
type vecSlots struct {
	slots   []*entry
	vecless []string
}

// slotsJob returns the job that makes the entries by vector slot
// (appended to slots; no slot above maxSlot, none twice) and the ids of
// the messages without one into vs. It reads the slots from the columns
// and takes each entry's address, not the entry, so that it runs beside
// the entries' decoding as one of its checks (before, the load read the
// 100,000 entries of a 100k shard back after their decoding, 20 MB, to
// find their slots: ~1.5 ms of a first use's critical path; issue 14). A
// slot below −1 is refused by the entry's decoding.
func (er *entryReader) slotsJob(slots []*entry, maxSlot int, vs *vecSlots) func() error {
	return func() error {
		var vecless []string
		for o := range er.c.recs {
			v := int(er.c.recs[o].vslot) + 1
			switch {
			case v == 0:
				vecless = append(vecless, er.s.docs.fileID(uint32(o)))
				continue
			case v < 0:
				continue
			case v > maxSlot:
				return fmt.Errorf("%w: vector slot of %q out of range", errSnapshot, er.s.docs.fileID(uint32(o)))
			}
			for len(slots) < v {
				slots = append(slots, nil)
			}
			if slots[v-1] != nil {
				return fmt.Errorf("%w: vector slot %d twice", errSnapshot, v)
			}
			slots[v-1] = &er.all[o]
		}
		vs.slots, vs.vecless = slots, vecless
		return nil
	}
}
