package recall

import (
	"math"
	"slices"
	"time"
)

// The lexical channel: bleve's matches (or the shard's own, in memory)
// re-scored with the textbook BM25 over the resource's exact statistics
// (bm25.go), the turn-context rule (context.go), date terms (dates.go) and
// the compound-identifier bonus.

// lexScoring is the exact lexical scoring of one query over one shard:
// the query's analysed terms (ids in s.stats, noTerm for unseen ones) with
// their idfs, its dates and compound identifiers. The statistics are the
// query's, shared by the lexical channel and the cross-scoring of vector
// candidates.
type lexScoring struct {
	s         *shard
	qids      []uint32
	idfs      []float64
	dates     []dateTerm
	types     []typeTerm // answer types the query asks for (answertype.go)
	compounds []compound
	bonusMax  float64 // the largest compound bonus: the sum of the compounds' idfs
	// cmasks holds each compound's words as a mask over qids' positions;
	// cmaskAny is set when one has a word past the 64th query term.
	cmasks   []uint64
	cmaskAny bool
	alpha    float64 // Tuning.ContextWeight
	next     bool    // the turn after counts (not Tuning.NoTurnAfter)
	has      bool    // the query has an analysed or a date term
	// memo holds own scores; with the context rule each turn is scored
	// as itself and as a neighbour's context.
	memo *scoreMemo
	// kept is the lexical channel's scratch once its own scores are
	// complete (lexicalPostings with keepOwn): own reads a turn's there
	// instead of scoring its terms, for the fusion's cross-scoring of the
	// vector candidates (candidates). The search releases it (release).
	kept *lexScratch
}

// keepOwn makes the own scores of sc, complete for every ord of the shard
// (lexScratch.ownScores), the ones own returns, until release.
func (ls *lexScoring) keepOwn(sc *lexScratch) { ls.kept = sc }

// release gives back the scratch kept by keepOwn (none: nothing).
func (ls *lexScoring) release() {
	if sc := ls.kept; sc != nil {
		ls.kept = nil
		sc.release()
	}
}

// lexScorer returns the exact lexical scoring of text, asked at at
// (Query.At), over s.
func (ix *Index) lexScorer(s *shard, text string, at time.Time) *lexScoring {
	qterms := distinct(ix.cfg.Lexical.Terms(text))
	ls := &lexScoring{s: s, qids: make([]uint32, len(qterms)), idfs: make([]float64, len(qterms)),
		alpha: ix.cfg.Tuning.ContextWeight, next: !ix.cfg.Tuning.NoTurnAfter}
	for i, t := range qterms {
		ls.qids[i], ls.idfs[i] = s.stats.lookup(t), s.stats.idf(t)
	}
	if !ix.cfg.Tuning.NoCompounds {
		for _, c := range ix.compounds(text, s) {
			if !holdsAll(ls.qids, c.ids) {
				continue // see compounds
			}
			ls.compounds = append(ls.compounds, c)
			ls.bonusMax += c.idf
			ls.addCompoundMask(c)
		}
	}
	if !ix.cfg.Tuning.NoDates {
		ls.dates = dateTerms(text, at, s)
	}
	if !ix.cfg.Tuning.NoAnswerTypes {
		ls.types = typeTerms(text, s)
	}
	if ls.alpha > 0 {
		ls.memo = newScoreMemo(s.ords)
	}
	ls.has = len(qterms) > 0 || len(ls.dates) > 0 || len(ls.types) > 0
	return ls
}

// addCompoundMask records which query terms c's words are.
// periods returns the query dates ls scores (Ranking.Dates).
func (ls *lexScoring) periods() []DatePeriod {
	var out []DatePeriod
	for _, dt := range ls.dates {
		out = append(out, DatePeriod{From: dt.period.from, To: dt.period.to, Month: dt.period.month})
	}
	return out
}

func (ls *lexScoring) addCompoundMask(c compound) {
	var m uint64
	for _, id := range c.ids {
		i := slices.Index(ls.qids, id) // found: c's words are query terms
		if i >= 64 {
			ls.cmaskAny = true
			return
		}
		m |= 1 << i
	}
	ls.cmasks = append(ls.cmasks, m)
}

// mayBonus reports whether a message holding the query terms of mask
// (lexScratch.mask) may have a compound bonus: it holds every word of a
// compound (compoundBonus).
func (ls *lexScoring) mayBonus(mask uint64) bool {
	if ls.cmaskAny {
		return true
	}
	for _, m := range ls.cmasks {
		if mask&m == m {
			return true
		}
	}
	return false
}

// own is a turn's score by its own words, dates and answer types.
func (ls *lexScoring) own(e *entry) float64 {
	if k := ls.kept; k != nil && e.ord < k.ords {
		return k.ownOf(int32(e.ord)) // bit-equal to the sum below (TestLexicalPostingsExact)
	}
	if sc, ok := ls.memo.get(e.ord); ok {
		return sc
	}
	s := ls.s
	s.soundTerms(e)
	sc := s.stats.score(ls.qids, ls.idfs, e.terms) + s.stats.dateScore(ls.dates, e.doc.CreatedAt, e.ref, len(e.terms)) + s.stats.typeScore(ls.types, e.atypes, len(e.terms))
	ls.memo.put(e.ord, sc)
	return sc
}

// score is e's lexical score: max(own, α × the turn before's own, α × the
// turn after's own) (context.go), plus the compound bonus (compoundBonus)
// when that is positive. A message whose words, dates and neighbours do
// not match scores 0: the bonus ranks matches, it does not make one (a
// message can hold "zephyr-quote" inside "xzephyr-quotes" without either
// analysed word).
func (ls *lexScoring) score(e *entry) float64 {
	return ls.withBonus(e, ls.contextScore(e, ls.own))
}

// contextScore applies the turn-context rule to e with own scores from own.
func (ls *lexScoring) contextScore(e *entry, own func(*entry) float64) float64 {
	sc := own(e)
	if ls.alpha <= 0 {
		return sc
	}
	if e.prev != nil {
		sc = max(sc, ls.alpha*own(e.prev))
	}
	if ls.next && e.next != nil {
		sc = max(sc, ls.alpha*own(e.next))
	}
	return sc
}

// withBonus returns base plus e's compound bonus, or 0 when base is 0.
func (ls *lexScoring) withBonus(e *entry, base float64) float64 {
	if base == 0 {
		return 0
	}
	return base + compoundBonus(ls.compounds, e, ls.s)
}

// memoDenseMax is the largest shard (in ordinals) whose scoreMemo is a
// slice: 64 KiB, where a search may score much of the shard.
const memoDenseMax = 8192

// scoreMemo memoises the own scores of one query by entry.ord: a slice
// over every ordinal of a small shard, a map in a large one, where a search
// scores a few hundred messages (bleve's candidates, their replies, the
// vector candidates) and the slice cost 800 KB a query at 100k messages.
// The map is made at the first put unless the search gave its scratch's
// (searchScratch.memo). A nil memo remembers nothing.
type scoreMemo struct {
	dense  []float64 // NaN until scored
	sparse map[int]float64
	large  bool // sparse, not dense
}

func newScoreMemo(ords int) *scoreMemo {
	if ords > memoDenseMax {
		return &scoreMemo{large: true}
	}
	m := &scoreMemo{dense: make([]float64, ords)}
	for i := range m.dense {
		m.dense[i] = math.NaN()
	}
	return m
}

func (m *scoreMemo) get(ord int) (float64, bool) {
	switch {
	case m == nil:
		return 0, false
	case m.large:
		sc, ok := m.sparse[ord]
		return sc, ok
	case ord < len(m.dense) && !math.IsNaN(m.dense[ord]):
		return m.dense[ord], true
	}
	return 0, false
}

func (m *scoreMemo) put(ord int, sc float64) {
	switch {
	case m == nil:
	case m.large:
		if m.sparse == nil {
			m.sparse = make(map[int]float64, 256)
		}
		m.sparse[ord] = sc
	case ord < len(m.dense):
		m.dense[ord] = sc
	}
}

// lexicalChannel returns up to q.pool allowed candidates ranked by
// textbook BM25 (lexicalPostings), or by bleve's matches re-scored (or
// bleve's own BM25) with Tuning.BleveMatches (Tuning.BleveScores).
func (ix *Index) lexicalChannel(q *channelQuery) ([]scored, error) {
	if !q.hasTerms {
		return nil, nil
	}
	if t := ix.cfg.Tuning; !t.BleveScores && !t.BleveMatches && !q.s.post.overflow {
		return ix.lexicalPostings(q)
	}
	return ix.lexicalBleve(q)
}

// lexicalBleve asks bleve for the matches (re-scoring them exactly unless
// Tuning.BleveScores), widening when the filter removed candidates: the
// channel before the shard's postings, kept to measure against them
// (Tuning.BleveMatches) and for Tuning.BleveScores.
func (ix *Index) lexicalBleve(q *channelQuery) ([]scored, error) {
	lq := lexQuery{Text: q.text, Resource: q.s.resource, Thread: q.thread, Size: q.pool + max(q.slack, 0)}
	if q.restricted && q.slack < 0 {
		if ids := directIDs(q); ids != nil {
			if len(ids) == 0 {
				return nil, nil
			}
			lq.IDs = ids
		}
	}
	hits, total, err := ix.cfg.Lexical.search(q.ctx, lq)
	if err != nil {
		return nil, err
	}
	if !ix.cfg.Tuning.BleveScores && total > len(hits) && total <= ix.cfg.Tuning.RescoreDepth {
		// bleve ranks with its approximate BM25, which depends on the
		// segment layout: when the query matches at most RescoreDepth
		// messages, re-score them all, so the textbook ranking is exact
		// and stable across merges.
		lq.Size = total
		if hits, total, err = ix.cfg.Lexical.search(q.ctx, lq); err != nil {
			return nil, err
		}
	}
	out := ix.keepLexical(q, hits)
	if q.slack < 0 && len(out) < q.pool && total > len(hits) {
		// The filter removed candidates: widen to every match so that the
		// topK among the allowed messages is exact.
		lq.Size = total
		if hits, _, err = ix.cfg.Lexical.search(q.ctx, lq); err != nil {
			return nil, err
		}
		out = ix.keepLexical(q, hits)
	}
	if !ix.cfg.Tuning.BleveScores {
		// bleve matched the turns by their own words; their neighbours
		// match through them (lexScore applies the context rule).
		ranked := make([]scored, len(hits))
		for i, h := range hits {
			ranked[i] = scored{id: h.ID, score: h.Score}
		}
		out = ix.addNeighbours(q.s, nil, out, ranked, q.allowed, func(e *entry) (float64, bool) {
			sc := q.lexScore(e)
			return sc, sc > 0
		})
	}
	sortScored(out)
	return firstN(out, q.pool), nil
}

// directIDs returns the ids bleve should search instead of widening the
// candidate pool under a filter: the allowed turns and the turns before
// and after them (a turn matches through its neighbours, addNeighbours,
// which may be filtered out); nil when there are more than directIDLimit,
// empty (not nil) when no message is allowed: the channel then has nothing
// to return, where it used to widen to every match of the words and drop
// them all (a filter on a thread id that does not exist, 100k messages in
// one resource: 95–110 ms a lexical search, now 3–10 ms).
func directIDs(q *channelQuery) []string {
	ids := []string{}
	listed := map[string]bool{}
	for _, e := range q.s.docs.all() {
		if !q.allowed(e) {
			continue
		}
		for _, x := range []*entry{e, e.prev, q.s.after(e)} {
			if x != nil && !listed[x.doc.ID] {
				listed[x.doc.ID] = true
				ids = append(ids, x.doc.ID)
			}
		}
		if len(ids) > directIDLimit {
			return nil
		}
	}
	return ids
}

// keepLexical returns bleve's hits that are allowed, with their exact
// score (bleve's own with Tuning.BleveScores).
func (ix *Index) keepLexical(q *channelQuery, hs []lexHit) []scored {
	out := make([]scored, 0, len(hs))
	for _, h := range hs {
		if e := q.s.docs.get(h.ID); q.allowed(e) {
			sc := h.Score
			if !ix.cfg.Tuning.BleveScores {
				sc = q.lexScore(e)
			}
			out = append(out, scored{h.ID, sc, e})
		}
	}
	return out
}
