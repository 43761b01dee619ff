package recall

import (
	"math"
	"strings"
)

// The turn-context rule (Tuning.ContextWeight): each channel scores a turn
// max(own score, α × the previous turn's own score, α × the next turn's
// own score). A reply ("I went yesterday, it was so powerful") is about
// what the turn before it asked ("How was the support group?"), so a
// question naming that finds the reply too; symmetrically, a turn is what
// its reply talks about ("my cat is called Luna" → "Luna is a lovely
// name"), so a question the reply answers finds the turn too (the turn
// after, unless Tuning.NoTurnAfter). α < 1 keeps a turn that matches by
// itself above the turn that merely neighbours it. Measured on both dev
// sets with α = 0.5 (docs/recall.md): the turn before, LoCoMo turn
// recall_any@10 0.676 → 0.729 lexical, LongMemEval 0.800 → 0.833; the turn
// after, with use-lite hybrid, LoCoMo 0.770 → 0.775 and LongMemEval
// 0.900 → 0.933.
//
// The lexical channel applies it in its score (lexScorer); the
// vector channel to its ranked list (contextScores, addNeighbours) and to
// candidates it scores itself (similarity).
//
// The exchange rule (vector channel, unless Tuning.NoExchange): a reply
// to a question is matched as the exchange, the turn embedded together
// with the question it answers. When the turn before holds a "?" and the
// reply is not the agent's own (AnswersQuestion), the reply scores at
// least the query's cosine with the sum of the two stored vectors
// (ExchangeScore), computed at search time, nothing embedded again:
// "What kind of counseling … do you want to pursue?" → "I'm thinking of
// working with trans people …" is found by a question about the
// counseling Caroline wants to pursue, up with the question (rank 6 → 2),
// where 0.5 × the question's cosine left it below the turns that repeat
// the words. An agent's answer (role assistant, no name) is general
// content and the fact is in the user's question, so it is not lifted
// (LongMemEval: lifted, the assistant's replies rose beside the user's
// evidence turns; docs/recall.md).

// contextOf returns the turns e is matched through: the one before it and,
// unless Tuning.NoTurnAfter, the one after it in its thread (nil when
// absent); both nil without the rule (ContextWeight ≤ 0). Caller holds
// s.mu.
func (ix *Index) contextOf(s *shard, e *entry) (prev, next *entry) {
	if ix.cfg.Tuning.ContextWeight <= 0 {
		return nil, nil
	}
	if !ix.cfg.Tuning.NoTurnAfter {
		next = s.after(e)
	}
	return e.prev, next
}

// contextScores applies the turn-context rule (Tuning.ContextWeight) to a
// channel list whose scores are the turns' own: a turn whose previous or
// next turn was ranked (ranked holds every turn the channel ranked, with
// its own score, excluded ones too) scores max(own, α × that turn's
// positive score). A neighbour not ranked scores below every listed turn,
// so α times it changes nothing. The exchange rule (exchange) reads the
// question's cosine with qv from its vector, ranked or not: the sum can
// exceed both turns' scores, so a listed reply scores the same whatever
// the pool ranked.
func (ix *Index) contextScores(s *shard, out, ranked []scored, vq *vecQuery, scr *searchScratch) {
	alpha := ix.cfg.Tuning.ContextWeight
	if alpha <= 0 {
		return
	}
	own := scratchMap(scr, func(sc *searchScratch) map[string]float64 { return sc.own }, len(ranked))
	for _, r := range ranked {
		own[r.id] = r.score
	}
	for i := range out {
		e := out[i].entry(s)
		prev, next := ix.contextOf(s, e)
		for _, n := range []*entry{prev, next} {
			if n == nil {
				continue
			}
			if ns, ok := own[n.doc.ID]; ok && ns > 0 {
				out[i].score = max(out[i].score, alpha*ns)
			}
		}
		if x, ok := ix.exchange(s, e, own[out[i].id], vq, out[i].score); ok {
			out[i].score = max(out[i].score, x)
		}
	}
}

// exchange is e's score by the exchange rule for the query of vq, own
// its cosine: the query's cosine with the sum of e's vector and the
// vector of the turn before it (ExchangeScore), at most the question's
// own cosine, when the rule is on, e answers the question that turn asked
// (AnswersQuestion), both are embedded and the question's cosine is
// positive; false otherwise. The cap keeps the channel's list exact: a
// reply rises to its question at most, so one whose question was not
// ranked cannot pass a listed turn, and the reply of a ranked question is
// scored (addNeighbours). The caller keeps the higher of it and floor, so
// false is also returned when the question's cosine (or its codes' bound,
// vecQuery.bound) is at most floor: the score cannot pass it, and the
// cosine of the two turns is not computed.
func (ix *Index) exchange(s *shard, e *entry, own float64, vq *vecQuery, floor float64) (float64, bool) {
	if vq == nil || !ix.answers(s, e) || e.vslot == 0 || e.prev.vslot == 0 {
		return 0, false
	}
	p := e.prev.vslot - 1
	if neighbourBound && vq.bound(p) <= floor {
		return 0, false
	}
	ps := vq.cos(p)
	if ps <= 0 || (neighbourBound && ps <= floor) {
		return 0, false
	}
	return min(ExchangeScore(own, ps, vq.pairCos(e.vslot-1, p)), ps), true
}

// answers reports whether the exchange rule applies to e, an entry of s
// (caller holds its lock): the rule is on (ContextWeight > 0, not
// NoExchange) and e answers the question the turn before it asked
// (AnswersQuestion, the "?" remembered by s.qmarks).
func (ix *Index) answers(s *shard, e *entry) bool {
	t := ix.cfg.Tuning
	if t.ContextWeight <= 0 || t.NoExchange || e == nil || e.prev == nil {
		return false
	}
	if e.doc.Role == "assistant" && e.doc.Name == "" {
		return false // AnswersQuestion's first test
	}
	return s.qmarks.hasQuestion(s.soundContent(e.prev), s.ords)
}

// AnswersQuestion reports whether reply is matched together with prev,
// the turn before it, by the exchange rule: prev holds a "?" and reply
// is not the agent's own (role assistant without a name; a named
// assistant is a person of an imported conversation).
func AnswersQuestion(prev, reply *Doc) bool {
	if reply.Role == "assistant" && reply.Name == "" {
		return false
	}
	return strings.Contains(prev.Content, "?")
}

// ExchangeScore is the cosine of a query with the sum of two unit
// vectors, the exchange of two turns, given the query's cosines with
// them (own, prev) and their cosine with each other (d):
// (own + prev) / √(2 + 2d). It is own when the sum is zero (d = −1).
func ExchangeScore(own, prev, d float64) float64 {
	n := 2 + 2*d
	if n <= 1e-12 {
		return own
	}
	return (own + prev) / math.Sqrt(n)
}

// addNeighbours adds to a channel list the neighbours of each ranked turn
// of positive score that the rule of contextScores may lift: the turn
// after it (its reply) and, unless Tuning.NoTurnAfter, the turn before it
// (what it replies to), scored exactly by score, when allowed and not
// listed yet; it returns the list sorted again. scr is the search's
// scratch (nil: allocate; the lexical goroutine's calls pass nil).
func (ix *Index) addNeighbours(s *shard, scr *searchScratch, out, ranked []scored, allowed func(*entry) bool, score func(*entry) (float64, bool)) []scored {
	if ix.cfg.Tuning.ContextWeight <= 0 || len(ranked) == 0 {
		return out
	}
	in := scratchMap(scr, func(sc *searchScratch) map[string]bool { return sc.in }, len(out)+len(ranked))
	for _, c := range out {
		in[c.id] = true
	}
	for _, r := range ranked {
		if r.score <= 0 {
			continue
		}
		e := r.entry(s)
		if e == nil {
			// A lexical hit the shard no longer holds: bleve still has
			// a message whose erasure removed it from the shard first
			// (Index.Remove) or from the store the shard loaded from.
			continue
		}
		nbs := [2]*entry{s.after(e)}
		if !ix.cfg.Tuning.NoTurnAfter {
			nbs[1] = e.prev
		}
		for _, nb := range nbs {
			if nb == nil || in[nb.doc.ID] || !allowed(nb) {
				continue
			}
			in[nb.doc.ID] = true
			if sc, ok := score(nb); ok {
				out = append(out, scored{nb.doc.ID, sc, nb})
			}
		}
	}
	sortScored(out)
	return out
}

// similarity is e's vector score for the query of vq: its cosine, or
// ContextWeight × the positive cosine of the turn before or after, or its
// exchange score (exchange), when that is higher (contextScores); false
// when none of them has a vector. A neighbour whose bound (vecQuery.bound)
// cannot lift the score is not scored.
func (ix *Index) similarity(s *shard, e *entry, vq *vecQuery) (float64, bool) {
	sim, ok := math.Inf(-1), false
	if vq == nil {
		return sim, ok
	}
	if e.vslot != 0 {
		sim, ok = vq.cos(e.vslot-1), true
	}
	own := sim
	alpha := ix.cfg.Tuning.ContextWeight
	prev, next := ix.contextOf(s, e)
	for _, n := range []*entry{prev, next} {
		if n == nil || n.vslot == 0 {
			continue
		}
		if ok && neighbourBound && alpha*vq.bound(n.vslot-1) <= sim {
			continue // α × its cosine cannot pass sim
		}
		if ns := vq.cos(n.vslot - 1); ns > 0 {
			sim, ok = max(sim, alpha*ns), true
		}
	}
	if x, has := ix.exchange(s, e, own, vq, sim); has {
		sim = max(sim, x)
	}
	return sim, ok
}

// cosine is the similarity of two L2-normalised vectors computed exactly
// as chromem-go computes it (a float32 sum in index order), so that a turn
// scores the same whether the collection or recall scored it.
func cosine(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// nonZeros returns the indexes of a's non-zero components, ascending, when
// they are at most a quarter of them (a sparse hash-384 query), else nil.
func nonZeros(a []float32) []int32 {
	n := 0
	for _, f := range a {
		if f != 0 {
			n++
		}
	}
	if 4*n > len(a) {
		return nil
	}
	nz := make([]int32, 0, n)
	for i, f := range a {
		if f != 0 {
			nz = append(nz, int32(i))
		}
	}
	return nz
}

// cosineAt is cosine(a, b) summed over nz, the non-zero components of a
// (nonZeros; nil: all). It is the same float32 sum in the same order: a
// skipped term is a[i]·b[i] = ±0, and adding ±0 leaves the sum unchanged
// (the sum starts at +0 and, rounding to nearest, never becomes −0), so
// the scores, and the rankings, are identical (TestCosineAt) for finite
// vectors. A damaged row (a NaN where the query is zero, while a mapped
// snapshot is verified: snapshot_verify.go) may score finite here, which
// that check allows (vector scores may be wrong until it ends; a
// non-finite one is still never returned).
func cosineAt(a, b []float32, nz []int32) float64 {
	if nz == nil {
		return cosine(a, b)
	}
	var s float32
	for _, i := range nz {
		s += a[i] * b[i]
	}
	return float64(s)
}
