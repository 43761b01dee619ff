package recall

import (
	"context"
	"math"
	"math/bits"

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
		if o < 0 || sc.see(o) {
			return
		}
		base := sc.contextScore(ls, p, o)
		if base == 0 {
			return
		}
		bound := base
		if sc.mask != nil && ls.mayBonus(sc.maskOf(o)) {
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
		if sc.own[i] < seed {
			if sc.mask != nil && ls.mayBonus(sc.mask[i]) {
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
	theta := kthOwn(sc.own, k)
	if theta <= 0 || math.IsInf(theta, -1) {
		return math.Inf(-1)
	}
	if ls.alpha > 1 {
		theta /= ls.alpha
	}
	return theta
}

// kthOwn returns the k-th largest of own (−Inf when there are fewer),
// with a min-heap of the k largest.
func kthOwn(own []float64, k int) float64 {
	if k <= 0 || len(own) < k {
		return math.Inf(-1)
	}
	h := make([]float64, 0, k)
	for _, v := range own {
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
	base := sc.ownOf(o)
	if ls.alpha <= 0 {
		return base
	}
	if n := p.prev[o]; n >= 0 {
		base = max(base, ls.alpha*sc.ownOf(n))
	}
	if n := p.next[o]; ls.next && n >= 0 {
		base = max(base, ls.alpha*sc.ownOf(n))
	}
	return base
}

// ownScores fills sc.touched with the ords of the messages with an own
// score (words, dates and answer types), ascending, sc.own with their
// scores and, when the query has compound identifiers, sc.mask with the
// query terms each holds, then indexes them (lexScratch.index). It returns
// ctx's error when ctx ended (checked every cancelEvery messages; release
// needs nothing of what it set).
func (sc *lexScratch) ownScores(ctx context.Context, s *shard, ls *lexScoring) error {
	if s.stats.n == 0 {
		sc.index()
		return nil
	}
	avgdl := float64(s.stats.totalLen) / float64(s.stats.n)
	if err := sc.wordScores(ctx, s, ls, avgdl); err != nil {
		return err
	}
	if len(ls.dates) > 0 || len(ls.types) > 0 {
		if err := sc.dateTypeScores(ctx, s, ls, avgdl); err != nil {
			return err
		}
	}
	sc.index()
	return nil
}

// wordScores sets the own scores by the query's words. It walks the ords
// by windows of ownWindow: each query term's postings in the window, in the
// query's term order (bm25Stats.score's order, so the sums are bit-equal),
// add their weights into a dense window of scores, whose scored ords are
// then appended in ord order. The scores are written by ord as before, but
// into 32 KB that stay in cache and are cleared as read, not into a scratch
// of 8 bytes an ord of the shard (lexScratch).
func (sc *lexScratch) wordScores(ctx context.Context, s *shard, ls *lexScoring, avgdl float64) error {
	p := &s.post
	lists := sc.lists[:0]
	for _, t := range ls.qids {
		var l []uint32
		if t != noTerm && int(t) < p.terms() {
			l = p.list(t)
		}
		lists = append(lists, l)
	}
	sc.lists = lists
	sc.reserve(lists, s.ords)
	heads := sc.heads[:0]
	for range lists {
		heads = append(heads, 0)
	}
	sc.heads = heads
	if sc.win == nil {
		sc.win, sc.winMask = new([ownWindow]float64), new([ownWindow]uint64)
	}
	win, winMask, masks := sc.win, sc.winMask, sc.mask != nil
	var marks [ownWindow / 64]uint64
	for {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		next := uint32(math.MaxUint32) // the smallest ord at a head
		for j, l := range lists {
			if h := heads[j]; h < len(l) {
				next = min(next, l[h]>>tfBits)
			}
		}
		if next == math.MaxUint32 {
			return nil
		}
		base := next &^ (ownWindow - 1)
		end := base + ownWindow
		sc.winDirty = true
		for j, l := range lists {
			idf, t, h := ls.idfs[j], ls.qids[j], heads[j]
			for ; h < len(l) && l[h]>>tfBits < end; h++ {
				o := l[h] >> tfBits
				w := o - base
				win[w] += bm25.Weight(idf, float64(p.tf(l[h], t, s.termSums)), bm25.Norm(float64(p.lens[o]), avgdl))
				marks[w>>6] |= 1 << (w & 63)
				if masks && j < 64 {
					winMask[w] |= 1 << j
				}
			}
			heads[j] = h
		}
		for i, b := range marks {
			for ; b != 0; b &= b - 1 {
				w := i<<6 | bits.TrailingZeros64(b)
				sc.appendOwn(int32(base)+int32(w), win[w], winMask[w])
				win[w], winMask[w] = 0, 0
			}
			marks[i] = 0
		}
		sc.winDirty = false
	}
}

// ownWindow is the number of ords wordScores scores at a time (a power of
// two): 32 KB of scores and as many of masks.
const ownWindow = 4096

// dateTypeScores adds to the own scores the weights of the query's dates,
// then of its answer types (the order of lexScoring.own's sum, so both
// paths score bit-equal). The dates come from the ord arrays (dateScore's
// sum); the types from the entries.
func (sc *lexScratch) dateTypeScores(ctx context.Context, s *shard, ls *lexScoring, avgdl float64) error {
	p := &s.post
	if sc.dateOwn(p, ls, avgdl) {
		return nil
	}
	adds := sc.adds[:0]
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
			adds = append(adds, ownAdd{int32(o), d, t})
		}
	}
	sc.adds = adds
	sc.addOwn()
	return nil
}

// dateOwn adds the query dates' weights to the own scores of the messages
// carrying them, from the dates' ords (dateTerm.ords), as
// dateTypeScores's scan of every ord adds them: by ascending ord, each
// message's dates summed in the query's order, then added to its own
// score. false, having done nothing, when the query asks for answer types
// or a date has no ords: the scan then does it.
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
	adds := sc.adds[:0]
	for {
		o := int32(-1) // the smallest ord not done
		for j, dt := range ls.dates {
			if at[j] < len(dt.ords) && (o < 0 || dt.ords[at[j]] < o) {
				o = dt.ords[at[j]]
			}
		}
		if o < 0 {
			break
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
			adds = append(adds, ownAdd{ord: o, d: d})
		}
	}
	sc.adds = adds
	sc.addOwn()
	return true
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
