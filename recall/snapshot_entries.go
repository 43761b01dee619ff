package recall

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// Reading a snapshot's messages (the format: snapshot_format.go;
// readMessages calls readThreads). The threads' section is read first
// (ids, numbers of messages, vector sums), which numbers every thread's
// messages, and the postings that follow it; the messages' columns
// (snapshot_msgs.go) are then checked by ord — whatever making an entry
// could find wrong — and the entries left to be made on demand
// (snapshot_lazy.go). The threads are cut into runs of consecutive ords
// that two goroutines check at once when the shard is large
// (parallelMin). What is shared (the statistics' sums, the answer types'
// counts) is added up per run and merged afterwards. The checks of what
// nothing reads before the load returns (snapReader.later: the postings,
// the orders of ids and terms) are taken by the same two goroutines.

// parallelMin is the fewest messages whose checks are split between two
// goroutines (a variable for the tests).
var parallelMin = 1 << 14

// span is one thread of the snapshot: its id and its messages' ords,
// [start, start+n), in seq order.
type span struct {
	id       string
	start, n int
}

// entryReader checks the snapshot's messages and makes their entries
// (snapshot_lazy.go).
type entryReader struct {
	s   *shard
	c   *msgColumns // the messages' columns (snapshot_msgs.go)
	all []entry     // room for the entries, in the order they are made
	ths []*entry    // the threads' entries, by ord (nil: each thread makes its own)
}

// entryPart is what the checks of one run of threads adds up, merged
// into the shard afterwards (entryReader.merge).
type entryPart struct {
	terms int64         // the analysed terms read
	types [numTypes]int // the messages of each answer type
	err   error         // the first error of the run
}

// readThreads reads the messages, their threads' vector sums (of dims
// each) and the postings; it returns the array of entries by vector slot
// (made on demand) and the ids of the messages without one. spare is
// readIDs' room for the vector slots, the postings' entries by ord and
// the threads' entries.
func (s *shard) readThreads(r *snapReader, dims int, spare []*entry) (slots []*entry, vectorless []string, err error) {
	// One allocation for every entry, off the Go heap (offheap.go), in
	// huge pages, touched as entries are made; the slots in readIDs'
	// block, sized at once.
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
	parts, err := er.decode(spans, r.later)
	if err != nil {
		return nil, nil, err
	}
	if err := er.merge(spans, parts); err != nil {
		return nil, nil, err
	}
	return er.slots(slots, len(r.b)/4)
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

// decode checks the messages of the threads spans and runs the checks: when
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

// run checks the threads spans into pt.
func (er *entryReader) run(spans []span, pt *entryPart) {
	for _, sp := range spans {
		if err := er.thread(sp, pt); err != nil {
			pt.err = err
			return
		}
	}
}

// merge adds the runs' parts (of the spans, in order) to the shard: the
// threads' arrays of entries, made on demand (snapshot_lazy.go).
func (er *entryReader) merge(spans []span, parts []entryPart) error {
	s := er.s
	var terms int64
	for k := range parts {
		pt := &parts[k]
		terms += pt.terms
		for t, c := range pt.types {
			s.typeDF[t] += c
		}
	}
	lz := &lazyEntries{er: er, spans: spans, span: make(map[string]int, len(spans)),
		made: make([]atomic.Bool, len(er.all)), linked: make([]atomic.Bool, len(spans))}
	for i, sp := range spans {
		if _, dup := s.threads[sp.id]; dup {
			return fmt.Errorf("%w: thread %q twice", errSnapshot, sp.id)
		}
		var th []*entry
		if er.ths != nil {
			th = er.ths[sp.start : sp.start+sp.n : sp.start+sp.n]
		} else {
			th = make([]*entry, sp.n)
		}
		s.threads[sp.id] = th
		lz.span[sp.id] = i
	}
	s.ords = len(er.all)
	if s.stats.n != s.ords || s.stats.totalLen != terms {
		return fmt.Errorf("%w: statistics do not match the messages", errSnapshot)
	}
	s.docs.n = s.ords
	if len(spans) > 0 {
		s.lz, s.post.lz, s.docs.lz = lz, lz, lz
	}
	return nil
}

// thread checks the messages of thread sp (in seq order, their fields in
// range: whatever making an entry could find wrong, so that making it on
// demand never fails) and records their neighbours' ords.
func (er *entryReader) thread(sp span, pt *entryPart) error {
	p := &er.s.post
	var last int64
	for i := range sp.n {
		o := sp.start + i
		if err := er.check(o, pt); err != nil {
			return err
		}
		seq := er.c.recs[o].seq
		if i > 0 && seq <= last {
			return fmt.Errorf("%w: thread %q out of seq order", errSnapshot, sp.id)
		}
		last = seq
		p.prev[o], p.next[o] = int32(o-1), int32(o+1)
		if i == 0 {
			p.prev[o] = -1
		}
		if i == sp.n-1 {
			p.next[o] = -1
		}
	}
	return nil
}

// check checks message o's columns and adds its terms and answer types
// to pt.
func (er *entryReader) check(o int, pt *entryPart) error {
	s, c := er.s, er.c
	m, p := &c.recs[o], &s.post
	_, md, terms := c.fields(o)
	if w := p.when[o]; int(m.role) >= len(c.names) || int(m.name) >= len(c.names) || m.vslot < -1 || m.atypes >= 1<<numTypes ||
		m.nsec >= 1e9 || p.ref[o].n > maxRefDays || int(p.lens[o]) != len(terms) || (w != noWhen && w != m.sec*1e9+int64(m.nsec)) {
		return fmt.Errorf("%w: message %q", errSnapshot, s.docs.fileID(uint32(o)))
	}
	if len(md) > 0 && (md[0] != '{' || !json.Valid(md)) {
		return fmt.Errorf("%w: metadata of %q", errSnapshot, s.docs.fileID(uint32(o)))
	}
	for i := range numTypes {
		if m.atypes&(1<<i) != 0 {
			pt.types[i]++
		}
	}
	pt.terms += int64(len(terms))
	return nil
}

// slots returns the entries' array by vector slot (its elements made on
// demand; no slot above maxSlot), the ords by slot (lazyEntries.slotOrd)
// and the ids of the messages without one, in ord order.
func (er *entryReader) slots(slots []*entry, maxSlot int) ([]*entry, []string, error) {
	var vecless []string
	var ords []int32
	for o := range er.all {
		v := int(er.c.recs[o].vslot) + 1
		if v == 0 {
			vecless = append(vecless, er.s.docs.fileID(uint32(o)))
			continue
		}
		if v > maxSlot {
			return nil, nil, fmt.Errorf("%w: vector slot of %q out of range", errSnapshot, er.s.docs.fileID(uint32(o)))
		}
		for len(ords) < v {
			ords = append(ords, -1)
		}
		if ords[v-1] >= 0 {
			return nil, nil, fmt.Errorf("%w: vector slot %d twice", errSnapshot, v)
		}
		ords[v-1] = int32(o)
	}
	if er.s.lz != nil {
		er.s.lz.slotOrd = ords
	}
	if len(ords) > cap(slots) {
		return make([]*entry, len(ords)), vecless, nil
	}
	return slots[:len(ords)], vecless, nil
}
