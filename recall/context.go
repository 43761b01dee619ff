package recall

import (
	"context"
	"math"
)

// The turn-context rule (Tuning.ContextWeight): each channel scores a turn
// max(own score, α × the previous turn's own score). A reply ("I went
// yesterday, it was so powerful") is about what the turn before it asked
// ("How was the support group?"), so a question naming that finds the
// reply too; α < 1 keeps a turn that matches by itself above the reply
// that merely follows it. Measured on both dev sets with α = 0.5 (README,
// "Recall"): LoCoMo turn recall_any@10 0.676 → 0.729 lexical, LongMemEval
// 0.800 → 0.833, recall_any@1 unchanged on both.
//
// The lexical channel applies it in its score (lexScorer); the
// vector channel to its ranked list (contextScores, addReplies) and to
// candidates it scores itself (similarity).

// contextScores applies the turn-context rule (Tuning.ContextWeight) to a
// channel list whose scores are the turns' own: a turn whose previous turn
// was ranked (ranked holds every turn the channel ranked, with its own
// score, excluded ones too) scores max(own, α × that turn's positive
// score). A previous turn not ranked scores below every listed turn, so
// α times it changes nothing.
func (ix *Index) contextScores(s *shard, out, ranked []scored) {
	alpha := ix.cfg.Tuning.ContextWeight
	if alpha <= 0 {
		return
	}
	own := make(map[string]float64, len(ranked))
	for _, r := range ranked {
		own[r.id] = r.score
	}
	for i := range out {
		if p := s.docs[out[i].id].prev; p != nil {
			if ps, ok := own[p.doc.ID]; ok && ps > 0 {
				out[i].score = max(out[i].score, alpha*ps)
			}
		}
	}
}

// addReplies adds to a channel list the turn after each ranked turn of
// positive score (its reply, which the rule of contextScores may lift),
// scored exactly by score, when allowed and not listed yet; it returns the
// list sorted again.
func (ix *Index) addReplies(s *shard, out, ranked []scored, allowed func(*entry) bool, score func(*entry) (float64, bool)) []scored {
	if ix.cfg.Tuning.ContextWeight <= 0 || len(ranked) == 0 {
		return out
	}
	in := make(map[string]bool, len(out)+len(ranked))
	for _, c := range out {
		in[c.id] = true
	}
	for _, r := range ranked {
		nx := s.after(s.docs[r.id])
		if nx == nil || in[nx.doc.ID] || r.score <= 0 || !allowed(nx) {
			continue
		}
		in[nx.doc.ID] = true
		if sc, ok := score(nx); ok {
			out = append(out, scored{nx.doc.ID, sc})
		}
	}
	sortScored(out)
	return out
}

// similarity is e's vector score for qv: its cosine, or ContextWeight ×
// the positive cosine of the turn before when that is higher
// (contextScores);
// false when neither has a vector.
func (ix *Index) similarity(_ context.Context, s *shard, e *entry, qv []float32) (float64, bool) {
	sim, ok := math.Inf(-1), false
	if v := s.vx.vector(e); v != nil {
		sim, ok = cosine(qv, v), true
	}
	if alpha := ix.cfg.Tuning.ContextWeight; alpha > 0 && e.prev != nil {
		if pv := s.vx.vector(e.prev); pv != nil {
			if ps := cosine(qv, pv); ps > 0 {
				sim, ok = max(sim, alpha*ps), true
			}
		}
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
