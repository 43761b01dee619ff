package recall

import "math"

// The date rule (Tuning.DateWeight), part of the hybrid fusion: a question
// that names a date ("What did Joanna bake in May 2022?", "the museum I
// mentioned two months ago") asks about what was said then, or about
// then. The lexical channel already scores each date as one more BM25 term
// (dates.go), but the hybrid weighs that term as one word of the question
// among the others and the vector channel does not see it at all, so a
// turn said months away that repeats the question's other words outranks
// the turn of the named day. The rule raises each candidate that carries
// a date the question names (created in the period, or its relative date
// pointing into it: DatePeriod.TF > 0) by δ standard deviations of the
// fused scores, as the speaker rule (speaker.go) raises the turns of the
// speaker a question names:
//
//	score = fused + δ × sd(fused)   when the turn carries a date the query names
//
// The reason is the same: nearly a partition. On the LoCoMo dev set 75 of
// the 85 questions naming an absolute date have every evidence turn said
// in that period (most of the others say "last night" or "yesterday" of
// it, which the referent carries); LongMemEval's generated questions name
// the day of their evidence session ("two months ago" asked on 11 March:
// a session of 11 January). δ = 2 as for speakers, so a clear outlier said
// at another time keeps its place. A query naming no date, or a date no
// candidate carries, changes no order; the single-channel modes keep
// their channel's own order. Off with Tuning.NoDates.

// dateFocus applies the date rule to fused (the scores of cands in input
// order; -Inf is left as it is) for the query's periods ps (QueryDates),
// with weight delta. With delta ≤ 0, no period, no candidate carrying one,
// fewer than two ranked candidates or no spread, fused is left unchanged.
func dateFocus(c Corpus, cands []candidate, fused []float64, ps []DatePeriod, delta float64) {
	if delta <= 0 || len(ps) == 0 || len(cands) < 2 {
		return
	}
	raise := make([]bool, len(cands))
	any := false
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		d := c.Doc(cands[i].ID)
		ref := c.Referent(cands[i].ID)
		for _, p := range ps {
			if p.TF(d.CreatedAt, ref) > 0 {
				raise[i], any = true, true
				break
			}
		}
	}
	if any {
		raiseBySD(fused, raise, delta)
	}
}
