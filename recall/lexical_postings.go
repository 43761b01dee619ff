package recall

import (
	"context"
	"math"
	"sync"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// lexicalPostings is the lexical channel over the shard's inverted index
// (postings.go): the exact top q.pool allowed messages by their lexical
// score (lexScoring.score), among every message of the scope, ties by id.
// It is what scoring every message of the shard would return (the
// reference of TestLexicalPostingsExact), at the cost of the query words'
// postings:
//
//  1. each posting of each query term adds the term's BM25 weight to its
//     message's own score, in the query's term order (bm25Stats.score's
//     order, so the sums are bit-equal), then each message created on a
//     date the query names adds the date's weight (dateScore), and each
//     message of an answer type the query asks for the type's weight
//     (typeScore, answertype.go);
//  2. the candidates are the messages with an own score and, under the
//     turn-context rule, the turns before and after them (the only ones
//     whose score α × a neighbour's own is positive);
//  3. a heap keeps the best q.pool allowed candidates; a candidate whose
//     score plus the largest compound bonus cannot reach the heap's worst
//     is dropped before the filter and the bonus are evaluated.
//
// Without a filter, in the whole resource, step 2 starts only from the
// messages whose own score can matter (seedFloor): at 100k messages a
// common query word matches tens of thousands, and reading each one's
// neighbours was most of the channel's time.
//
// Filters apply before topK exactly: the heap only takes allowed
// messages, however many the filter removes.
//
// It checks q.ctx every cancelEvery postings or candidates and returns its
// error when it ended (nothing else fails).
func (ix *Index) lexicalPostings(q *channelQuery) ([]scored, error) {
	s, ls, p := q.s, q.lex, &q.s.post
	sc := takeLexScratch(&s.lexScratch, s.ords, len(ls.compounds) > 0)
	if q.keepOwn {
		ls.keepOwn(sc) // the search releases it after the fusion
	} else {
		defer sc.release()
	}
	if err := sc.ownScores(q.ctx, s, ls); err != nil {
		return nil, err
	}
	proven := q.thread == "" && q.slack >= 0
	seed := math.Inf(-1)
	if proven {
		seed = sc.seedFloor(ls, q.pool+q.slack)
	}
	if err := sc.candidates(q, seed); err != nil {
		return nil, err
	}
	// Without a filter at most q.slack candidates are not allowed (the
	// exclusion), so the (pool+slack)-th best base score is a floor of the
	// pool's worst final score: a candidate whose bound is under it is
	// dropped without reading its entry. Under a filter or in a thread,
	// the (4 × pool)-th best is tried as the floor: when the pool fills
	// with scores at or above it, it was one; else the candidates under
	// it are taken too.
	floor := kthBase(sc.cands, 4*q.pool)
	if proven {
		floor = kthBase(sc.cands, q.pool+q.slack)
	}
	top := topScored{n: q.pool}
	if q.scr != nil {
		top.items = q.scr.lex[:0]
		defer func() { q.scr.lex = top.items[:0] }()
	}
	take := func(c lexCand) {
		if !top.mayTake(c.bound) {
			return
		}
		if e := p.byOrd[c.ord]; q.allowed(e) {
			top.offer(scored{e.doc.ID, ls.withBonus(e, c.base), e})
		}
	}
	for i, c := range sc.cands {
		if err := ctxErrEvery(q.ctx, i); err != nil {
			return nil, err
		}
		if c.bound >= floor {
			take(c)
		}
	}
	if !proven && !(len(top.items) == q.pool && top.items[0].score >= floor) {
		for i, c := range sc.cands {
			if err := ctxErrEvery(q.ctx, i); err != nil {
				return nil, err
			}
			if c.bound < floor {
				take(c)
			}
		}
	}
	out := top.items
	sortScored(out)
	return out, nil
}

// cancelEvery is how many postings, messages or candidates the lexical
// channel over the postings reads between two checks of its context (a
// power of two): at 100k messages in one resource a common word's
// postings are tens of thousands, and the channel ran ~100 ms without
// looking; a check every 4096 reads is a few microseconds apart, and costs
// nothing measurable (BenchmarkSearch/100k/lexical before and after).
const cancelEvery = 4096

// ctxErrEvery is ctxErr(ctx) at every cancelEvery-th read i (0
// included), nil between.
func ctxErrEvery(ctx context.Context, i int) error {
	if i&(cancelEvery-1) != 0 {
		return nil
	}
	return ctxErr(ctx)
}

// ctxErr is ctx's error, nil for a nil ctx (a channel query built without
// one, in the internal tests).
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// lexCand is a candidate of lexicalPostings: its lexical score without
// the compound bonus, and a bound of its score with it.
type lexCand struct {
	ord         int32
	base, bound float64
}

// candidates fills sc.cands with the messages of positive score: those
// with an own score of at least seed and, under the turn-context rule,
// the turns before and after them, and those that may have a compound
// bonus (seedFloor); with scope thread, the thread's when it
// has fewer turns than there are messages with an own score. It returns
// q.ctx's error when that ended (checked every cancelEvery messages).
func (sc *lexScratch) candidates(q *channelQuery, seed float64) error {
	ls, p := q.lex, &q.s.post
	add := func(o int32) {
		if o < 0 || sc.seen[o] == sc.gen {
			return
		}
		sc.seen[o] = sc.gen
		base := sc.contextScore(ls, p, o)
		if base == 0 {
			return
		}
		bound := base
		if sc.mask != nil && ls.mayBonus(sc.mask[o]) {
			bound += ls.bonusMax
		}
		sc.cands = append(sc.cands, lexCand{o, base, bound})
	}
	if th := q.s.threads[q.thread]; q.thread != "" && len(th) < len(sc.touched) {
		for i, e := range th {
			if err := ctxErrEvery(q.ctx, i); err != nil {
				return err
			}
			add(int32(e.ord))
		}
		return nil
	}
	for i, o := range sc.touched {
		if err := ctxErrEvery(q.ctx, i); err != nil {
			return err
		}
		if sc.own[o] < seed {
			if sc.mask != nil && ls.mayBonus(sc.mask[o]) {
				add(o) // a bonus may lift it (seedFloor); its neighbours are not lifted by it
			}
			continue
		}
		add(o)
		if ls.alpha > 0 {
			add(p.next[o])
			if ls.next {
				add(p.prev[o])
			}
		}
	}
	return nil
}

// seedFloor returns the own score under which a message needs not start
// the candidates (−Inf: every one does) when the (k = pool + slack)-th
// best base score is the floor (lexicalPostings, without a filter or a
// thread). With θ the k-th best own score, at least k messages score θ or
// more (a base score is at least the own score), so the floor is at least
// θ, and a candidate is taken only when its bound reaches it. A message
// that cannot have a compound bonus (lexScoring.mayBonus) is bounded by its
// base score, its own score or α times a neighbour's: it can be taken only
// when it, or a neighbour, has an own score of at least min(1, 1/α) × θ,
// the seed; one that may have a bonus holds the query terms of a compound
// (compoundBonus) and is listed by itself whatever its own score
// (candidates). So every candidate that can be taken is listed, and the
// floor, the k-th best base score, is the same: the k best are all listed.
// Before the bonus was kept apart, the seed was min(1, 1/α) × (θ − the
// largest bonus), below 0 for most queries naming an identifier: at 100k
// messages one query in ten listed 40–75 thousand candidates (BENCHMARKS.md).
func (sc *lexScratch) seedFloor(ls *lexScoring, k int) float64 {
	theta := kthOwn(sc.own, sc.touched, k)
	if theta <= 0 || math.IsInf(theta, -1) {
		return math.Inf(-1)
	}
	if ls.alpha > 1 {
		theta /= ls.alpha
	}
	return theta
}

// kthOwn returns the k-th largest own[o] over the ords o (−Inf when there
// are fewer), with a min-heap of the k largest.
func kthOwn(own []float64, ords []int32, k int) float64 {
	if k <= 0 || len(ords) < k {
		return math.Inf(-1)
	}
	h := make([]float64, 0, k)
	for _, o := range ords {
		v := own[o]
		switch {
		case len(h) < k:
			h = append(h, v)
			siftUp(h)
		case v > h[0]:
			h[0] = v
			siftDown(h)
		}
	}
	return h[0]
}

// siftUp restores the min-heap h after its last value was appended.
func siftUp(h []float64) {
	for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
		h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
	}
}

// siftDown restores the min-heap h after its root was replaced.
func siftDown(h []float64) {
	k := len(h)
	for i := 0; ; {
		m := i
		if l := 2*i + 1; l < k && h[l] < h[m] {
			m = l
		}
		if r := 2*i + 2; r < k && h[r] < h[m] {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// kthBase returns the k-th best base score of cands (-Inf when there are
// fewer), with a min-heap of the k best.
func kthBase(cands []lexCand, k int) float64 {
	if k <= 0 || len(cands) < k {
		return math.Inf(-1)
	}
	h := make([]float64, 0, k)
	for _, c := range cands {
		switch {
		case len(h) < k:
			h = append(h, c.base)
			for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		case c.base > h[0]:
			h[0] = c.base
			siftDown(h)
		}
	}
	return h[0]
}

// contextScore is lexScoring.contextScore of the entry of ord o over the
// own scores of sc (0 for a message without one), without reading the
// entries.
func (sc *lexScratch) contextScore(ls *lexScoring, p *postings, o int32) float64 {
	base := sc.own[o]
	if ls.alpha <= 0 {
		return base
	}
	if n := p.prev[o]; n >= 0 {
		base = max(base, ls.alpha*sc.own[n])
	}
	if n := p.next[o]; ls.next && n >= 0 {
		base = max(base, ls.alpha*sc.own[n])
	}
	return base
}

// ownScores fills sc.own with the own score (words and dates) of every
// message that has one, sc.touched with their ords and, when the query
// has compound identifiers, sc.mask with the query terms each holds. It
// returns ctx's error when ctx ended (checked every cancelEvery postings
// or messages; what it set so far stays consistent for release).
func (sc *lexScratch) ownScores(ctx context.Context, s *shard, ls *lexScoring) error {
	p := &s.post
	if s.stats.n == 0 {
		return nil
	}
	avgdl := float64(s.stats.totalLen) / float64(s.stats.n)
	for i, t := range ls.qids {
		if t == noTerm || int(t) >= len(p.lists) {
			continue
		}
		idf := ls.idfs[i]
		list := p.lists[t]
		for len(list) > 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
			chunk := list[:min(len(list), cancelEvery)]
			list = list[len(chunk):]
			for _, v := range chunk {
				o := v >> tfBits
				if sc.own[o] == 0 {
					sc.touched = append(sc.touched, int32(o))
				}
				sc.own[o] += bm25.Weight(idf, float64(p.tf(v, t, s.termSums)), bm25.Norm(float64(p.lens[o]), avgdl))
				if sc.mask != nil && i < 64 {
					sc.mask[o] |= 1 << i
				}
			}
		}
	}
	if len(ls.dates) == 0 && len(ls.types) == 0 {
		return nil
	}
	if sc.dateOwn(p, ls, avgdl) {
		return nil
	}
	// Dates, then answer types: the order of lexScoring.own's sum, so
	// both paths score bit-equal. The dates come from the ord arrays
	// (dateScore's sum); the types from the entries.
	for o, e := range p.byOrd {
		if err := ctxErrEvery(ctx, o); err != nil {
			return err
		}
		if e == nil {
			continue
		}
		var d, t float64
		for _, dt := range ls.dates {
			if tf := p.periodTF(o, dt.period); tf > 0 {
				d += bm25.Weight(dt.idf, float64(tf), bm25.Norm(float64(p.lens[o]), avgdl))
			}
		}
		if len(ls.types) > 0 {
			t = s.stats.typeScore(ls.types, e.atypes, len(e.terms))
		}
		if d > 0 || t > 0 {
			if sc.own[o] == 0 {
				sc.touched = append(sc.touched, int32(o))
			}
			sc.own[o] += d
			sc.own[o] += t
		}
	}
	return nil
}

// dateOwn adds the query dates' weights to the own scores of the messages
// carrying them, from the dates' ords (dateTerm.ords), as ownScores's scan
// of every ord adds them: by ascending ord, each message's dates summed in
// the query's order, then added to its own score. false, having done
// nothing, when the query asks for answer types or a date has no ords:
// the scan then does it.
func (sc *lexScratch) dateOwn(p *postings, ls *lexScoring, avgdl float64) bool {
	if len(ls.types) > 0 {
		return false
	}
	for _, dt := range ls.dates {
		if dt.ords == nil {
			return false
		}
	}
	at := sc.dateAt[:0]
	for range ls.dates {
		at = append(at, 0)
	}
	sc.dateAt = at
	for {
		o := int32(-1) // the smallest ord not done
		for j, dt := range ls.dates {
			if at[j] < len(dt.ords) && (o < 0 || dt.ords[at[j]] < o) {
				o = dt.ords[at[j]]
			}
		}
		if o < 0 {
			return true
		}
		var d float64
		for j, dt := range ls.dates {
			if at[j] < len(dt.ords) && dt.ords[at[j]] == o {
				at[j]++
				if tf := p.periodTF(int(o), dt.period); tf > 0 {
					d += bm25.Weight(dt.idf, float64(tf), bm25.Norm(float64(p.lens[o]), avgdl))
				}
			}
		}
		if d > 0 {
			if sc.own[o] == 0 {
				sc.touched = append(sc.touched, o)
			}
			sc.own[o] += d
		}
	}
}

// lexScratch is one search's scratch of lexicalPostings, indexed by ord.
// It is reused: at 100k messages it is 1.2 MB (and 1 MB of masks), which
// allocating (and clearing) per search would cost more than the search.
// The shard keeps one (shard.lexScratch, not emptied by a garbage
// collection: scratchSlot), a concurrent search takes one from the pool.
type lexScratch struct {
	own     []float64 // 0 unless the message matched by its words or dates
	seen    []uint32  // == gen: listed as a candidate in this search
	gen     uint32
	mask    []uint64 // nil, or by ord the query terms (first 64) it holds
	masks   []uint64 // mask's memory, kept when mask is nil
	touched []int32  // the ords whose own is set
	cands   []lexCand
	dateAt  []int                    // dateOwn's position in each date's ords
	keep    *scratchSlot[lexScratch] // where release returns it first (nil: the pool)
	ords    int                      // the shard's ords when taken
	// zeroing is 1 while release's goroutine zeroes what the last search
	// set; the next taker waits for it.
	zeroing sync.WaitGroup
}

// zeroAsyncMin is the number of scored messages from which release zeroes
// their scores and masks on a goroutine of its own (issue 14): at 100,000
// messages a query's ~20,000 are ~0.05–0.09 ms of random writes, which
// the search's caller (the fusion keeps the scratch to its end,
// lexScoring.keepOwn) no longer waits for. A smaller resource's are zeroed
// in place, as a goroutine would cost about as much.
const zeroAsyncMin = 4096

var lexScratchPool = sync.Pool{New: func() any { return new(lexScratch) }}

// getLexScratch returns a scratch for ords ordinals, own all zero and
// nothing seen; with masks, mask all zero, else nil.
func getLexScratch(ords int, masks bool) *lexScratch { return takeLexScratch(nil, ords, masks) }

// takeLexScratch is getLexScratch taking the scratch keep holds first
// (nil, or empty: one from the pool); release gives it back to keep.
func takeLexScratch(keep *scratchSlot[lexScratch], ords int, masks bool) *lexScratch {
	var sc *lexScratch
	if keep != nil {
		sc = keep.take()
	}
	if sc == nil {
		sc = lexScratchPool.Get().(*lexScratch)
	}
	sc.zeroing.Wait() // own and mask all zero again
	sc.keep, sc.ords = keep, ords
	if len(sc.own) < ords {
		n := ords + ords/4 + 64
		sc.own, sc.seen, sc.gen, sc.masks = make([]float64, n), make([]uint32, n), 0, nil
	}
	sc.mask = nil
	if masks {
		if len(sc.masks) < len(sc.own) {
			sc.masks = make([]uint64, len(sc.own))
		}
		sc.mask = sc.masks
	}
	sc.gen++
	if sc.gen == 0 {
		clear(sc.seen)
		sc.gen = 1
	}
	sc.touched, sc.cands = sc.touched[:0], sc.cands[:0]
	return sc
}

// release zeroes what the search set (on a goroutine of its own from
// zeroAsyncMin scored messages, which the next taker waits for) and returns
// sc to its slot, or to the pool when the slot holds another or sc is too
// large for the shard.
func (sc *lexScratch) release() {
	if len(sc.touched) >= zeroAsyncMin {
		sc.zeroing.Add(1)
		go func() {
			defer sc.zeroing.Done()
			sc.zero()
		}()
	} else {
		sc.zero()
	}
	keep := sc.keep
	sc.keep = nil
	if keep != nil && keepsScratch(len(sc.own), sc.ords) && keep.give(sc) {
		return
	}
	lexScratchPool.Put(sc)
}

// zero zeroes the own scores and masks of the touched ords.
func (sc *lexScratch) zero() {
	for _, o := range sc.touched {
		sc.own[o] = 0
		if sc.mask != nil {
			sc.mask[o] = 0
		}
	}
}

// topScored keeps the best n offered candidates (score descending, then id
// ascending, sortScored's order) in a heap whose root is the worst kept.
type topScored struct {
	n     int
	items []scored
}

// worse reports whether a ranks after b.
func worse(a, b scored) bool {
	return a.score < b.score || a.score == b.score && a.id > b.id
}

// mayTake reports whether a candidate whose score is at most bound could
// still be kept.
func (t *topScored) mayTake(bound float64) bool {
	return len(t.items) < t.n || bound >= t.items[0].score
}

// offer keeps c when it ranks among the best n.
func (t *topScored) offer(c scored) {
	if t.n <= 0 {
		return
	}
	if len(t.items) < t.n {
		t.items = append(t.items, c)
		t.up(len(t.items) - 1)
		return
	}
	if !worse(t.items[0], c) {
		return
	}
	t.items[0] = c
	t.down(0)
}

func (t *topScored) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(t.items[i], t.items[p]) {
			return
		}
		t.items[i], t.items[p] = t.items[p], t.items[i]
		i = p
	}
}

func (t *topScored) down(i int) {
	n := len(t.items)
	for {
		w := i
		if l := 2*i + 1; l < n && worse(t.items[l], t.items[w]) {
			w = l
		}
		if r := 2*i + 2; r < n && worse(t.items[r], t.items[w]) {
			w = r
		}
		if w == i {
			return
		}
		t.items[i], t.items[w] = t.items[w], t.items[i]
		i = w
	}
}
