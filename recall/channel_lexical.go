package recall

import "math"

// The lexical channel: bleve's matches (or the shard's own, in memory)
// re-scored with the textbook BM25 over the resource's exact statistics
// (bm25.go), the turn-context rule (context.go), date terms (dates.go) and
// the compound-identifier bonus.

// lexScorer returns the exact lexical score of a message of s for the query
// text, and whether the query has any analysed or date term. The
// statistics are the query's, shared by the lexical channel and the
// cross-scoring of vector candidates.
func (ix *Index) lexScorer(s *shard, text string) (func(*entry) float64, bool) {
	qterms := distinct(ix.cfg.Lexical.Terms(text))
	qids := make([]uint32, len(qterms))
	idfs := make([]float64, len(qterms))
	for i, t := range qterms {
		qids[i], idfs[i] = s.stats.lookup(t), s.stats.idf(t)
	}
	var compounds []compound
	if !ix.cfg.Tuning.NoCompounds {
		compounds = ix.compounds(text, s)
	}
	var dates []dateTerm
	if !ix.cfg.Tuning.NoDates {
		dates = dateTerms(text, s)
	}
	alpha := ix.cfg.Tuning.ContextWeight
	// own is a turn's score by its own words; memoised, since with the
	// context rule each turn is scored as itself and as a reply's context.
	var memo *scoreMemo
	if alpha > 0 {
		memo = newScoreMemo(s.ords)
	}
	own := func(e *entry) float64 {
		if sc, ok := memo.get(e.ord); ok {
			return sc
		}
		sc := s.stats.score(qids, idfs, e.terms) + s.stats.dateScore(dates, e.doc.CreatedAt, len(e.terms))
		memo.put(e.ord, sc)
		return sc
	}
	score := func(e *entry) float64 {
		sc := own(e)
		prev, next := ix.contextOf(s, e)
		for _, n := range []*entry{prev, next} {
			if n != nil {
				sc = max(sc, alpha*own(n))
			}
		}
		return sc + compoundBonus(compounds, e)
	}
	return score, len(qterms) > 0 || len(dates) > 0
}

// memoDenseMax is the largest shard (in ordinals) whose scoreMemo is a
// slice: 64 KiB, where lexicalInMemory may score every message.
const memoDenseMax = 8192

// scoreMemo memoises the own scores of one query by entry.ord: a slice
// over every ordinal of a small shard, a map in a large one, where a search
// scores a few hundred messages (bleve's candidates, their replies, the
// vector candidates) and the slice cost 800 KB a query at 100k messages.
// A nil memo remembers nothing.
type scoreMemo struct {
	dense  []float64 // NaN until scored
	sparse map[int]float64
}

func newScoreMemo(ords int) *scoreMemo {
	if ords > memoDenseMax {
		return &scoreMemo{sparse: make(map[int]float64, 256)}
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
	case m.sparse != nil:
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
	case m.sparse != nil:
		m.sparse[ord] = sc
	case ord < len(m.dense):
		m.dense[ord] = sc
	}
}

// lexicalChannel returns up to q.pool allowed candidates ranked by
// textbook BM25 (or bleve's BM25 with Tuning.BleveScores). q.slack >= 0
// says that at most slack candidates are not allowed (no filter, see
// channelQuery).
func (ix *Index) lexicalChannel(q *channelQuery) ([]scored, error) {
	if !q.hasTerms {
		return nil, nil
	}
	if out, ok := ix.lexicalInMemory(q); ok {
		return out, nil
	}
	return ix.lexicalBleve(q)
}

// lexicalInMemory enumerates the matches in the shard instead of bleve,
// when that is exact and cheaper; false when bleve must answer.
//
// When the query matches at most RescoreDepth messages, every match is
// re-scored with the textbook BM25 (lexicalBleve), and the shard holds
// every message's analysed terms: a message matches exactly when its score
// is positive (the same analyser and OR of terms as bleve's match query), so
// the matches are enumerated here instead of by bleve searches whose cost
// grows with the whole index (3.5 ms of lexical search at 1M messages,
// BENCHMARKS.md). matched counts what bleve's total would (the scope's
// matches; without a filter the exclusion is not part of the bleve query);
// beyond RescoreDepth bleve's top pool is used, as before. Same results:
// TestLexicalInMemory.
func (ix *Index) lexicalInMemory(q *channelQuery) ([]scored, bool) {
	s, t := q.s, ix.cfg.Tuning
	depth := t.RescoreDepth
	if t.BleveScores || t.BleveMatches || !(len(s.docs) <= depth || q.slack >= 0 && len(s.docs) <= inMemoryFactor*depth) {
		return nil, false
	}
	var out []scored
	matched := 0
	for id, e := range s.docs {
		if q.thread != "" && e.doc.ThreadID != q.thread {
			continue
		}
		sc := q.lexScore(e)
		if sc <= 0 {
			continue
		}
		matched++
		if q.allowed(e) {
			out = append(out, scored{id, sc})
		}
	}
	if len(s.docs) > depth && matched > depth {
		return nil, false
	}
	sortScored(out)
	return firstN(out, q.pool), true
}

// lexicalBleve asks bleve for the matches (re-scoring them exactly unless
// Tuning.BleveScores), widening when the filter removed candidates.
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
	hits, total, err := ix.cfg.Lexical.search(lq)
	if err != nil {
		return nil, err
	}
	if !ix.cfg.Tuning.BleveScores && total > len(hits) && total <= ix.cfg.Tuning.RescoreDepth {
		// bleve ranks with its approximate BM25, which depends on the
		// segment layout: when the query matches at most RescoreDepth
		// messages, re-score them all, so the textbook ranking is exact
		// and stable across merges.
		lq.Size = total
		if hits, total, err = ix.cfg.Lexical.search(lq); err != nil {
			return nil, err
		}
	}
	out := ix.keepLexical(q, hits)
	if q.slack < 0 && len(out) < q.pool && total > len(hits) {
		// The filter removed candidates: widen to every match so that the
		// topK among the allowed messages is exact.
		lq.Size = total
		if hits, _, err = ix.cfg.Lexical.search(lq); err != nil {
			return nil, err
		}
		out = ix.keepLexical(q, hits)
	}
	if !ix.cfg.Tuning.BleveScores {
		// bleve matched the turns by their own words; their neighbours
		// match through them (lexScore applies the context rule).
		ranked := make([]scored, len(hits))
		for i, h := range hits {
			ranked[i] = scored{h.ID, h.Score}
		}
		out = ix.addNeighbours(q.s, out, ranked, q.allowed, func(e *entry) (float64, bool) {
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
	for _, e := range q.s.docs {
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
		if e := q.s.docs[h.ID]; q.allowed(e) {
			sc := h.Score
			if !ix.cfg.Tuning.BleveScores {
				sc = q.lexScore(e)
			}
			out = append(out, scored{h.ID, sc})
		}
	}
	return out
}
