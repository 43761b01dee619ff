package recall

import (
	"math"
	"slices"
)

// The session-evidence rule (Tuning.SessionWeight), part of the hybrid
// fusion of a resource-wide search: a turn is also scored by the session
// it was said in. A thread in which another turn matches
// the query too is about what the query asks, and the evidence a question
// needs usually sits there; a turn that matches alone in an unrelated
// thread is more likely a chance match of a few words. This is
// hierarchical scoring (a passage scored with its document, as in passage
// retrieval): each candidate's fused score is standardised over the
// query's candidates, z, and raised by β × the best positive z among the
// other candidates of its thread:
//
//	score = z + β × max(0, max{z(c) : c another candidate of its thread})
//
// Only the other turns count, so a turn's own score is not counted twice
// (a thread's lone strong match gains nothing over a lone match
// elsewhere), and the best one alone, so a long thread does not win by
// length. Measured with β = 0.15 and use-lite over the turn-context rule
// (docs/recall.md), turn recall_any@1/5/10: LoCoMo 0.367/0.663/0.775 →
// 0.371/0.683/0.800, LongMemEval 0.567/0.900/0.933 → 0.600/0.900/0.933
// (session @1 0.900 → 0.933). With hash-384 it is off by default
// (DefaultSessionWeight). Summing a thread's three best instead (the
// turn's own included) did as well on LoCoMo and worse on LongMemEval.

// sessionEvidence applies the session-evidence rule to fused, the fused
// scores of cands (in input order; -Inf for a candidate the mode does not
// rank, left as it is), with weight beta. With fewer than two ranked
// candidates, a zero spread, or beta ≤ 0, fused is left unchanged. c
// knows every candidate (with a shard, the caller holds s.mu).
func sessionEvidence(c Corpus, cands []candidate, fused []float64, beta float64) {
	if beta <= 0 {
		return
	}
	mean, sd, n := finiteStats(fused)
	if n < 2 || sd == 0 {
		return
	}
	// best holds each thread's two best positive z (and who has the best).
	type best struct {
		who           int
		first, second float64
	}
	z := make([]float64, len(fused))
	threads := make([]string, len(fused))
	byThread := map[string]*best{}
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		z[i] = (f - mean) / sd
		threads[i] = c.Doc(cands[i].ID).ThreadID
		b := byThread[threads[i]]
		if b == nil {
			b = &best{who: -1}
			byThread[threads[i]] = b
		}
		switch {
		case z[i] > b.first:
			b.who, b.first, b.second = i, z[i], b.first
		case z[i] > b.second:
			b.second = z[i]
		}
	}
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		b := byThread[threads[i]]
		other := b.first
		if b.who == i {
			other = b.second
		}
		fused[i] = z[i] + beta*other
	}
}

// finiteStats returns the mean and the standard deviation of the finite
// values of xs, and how many there are.
func finiteStats(xs []float64) (mean, sd float64, n int) {
	for _, x := range xs {
		if !math.IsInf(x, 0) {
			mean += x
			n++
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	mean /= float64(n)
	var v float64
	for _, x := range xs {
		if !math.IsInf(x, 0) {
			v += (x - mean) * (x - mean)
		}
	}
	return mean, math.Sqrt(v / float64(n)), n
}

// The session-topic rule (Tuning.TopicWeight), the second piece of session
// evidence in the hybrid fusion of a resource-wide search: a session is
// also scored by what it is about as a whole, the cosine of the query with
// the mean of its messages' vectors (its centroid, kept per thread by the
// shard: topic.go). A question's evidence usually sits in a session about
// the question's subject even when the evidence turn itself shares few
// words with it ("How long was I in Japan?" → a turn about a Kyoto hotel
// in a session planning a Japan trip); the best other candidate of the
// thread (sessionEvidence) sees only the turns that matched, the centroid
// every turn of the session. The threads of the query's candidates are
// standardised against each other (z over the distinct threads), and each
// candidate is raised by γ × its thread's positive z: a thread no more on
// topic than the average candidate thread gains nothing, so the rule only
// reorders between sessions, never within one.

// sessionTopic applies the session-topic rule to fused (the scores of
// cands in input order; -Inf is left as it is) when the query has a
// vector (hasQV), with weight gamma; c gives each thread's cosine with the
// query. With gamma ≤ 0, no query vector, fewer than two threads that
// have a centroid or no spread between them, fused is left unchanged.
func sessionTopic(c Corpus, cands []candidate, fused []float64, hasQV bool, gamma float64) {
	if gamma <= 0 || !hasQV {
		return
	}
	cos := map[string]float64{}
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		th := c.Doc(cands[i].ID).ThreadID
		if _, seen := cos[th]; seen {
			continue
		}
		if tc, ok := c.TopicCosine(th); ok {
			cos[th] = tc
		} else {
			cos[th] = math.Inf(-1)
		}
	}
	vals := make([]float64, 0, len(cos))
	for _, c := range cos {
		vals = append(vals, c)
	}
	// Summed in map order, the mean and sd changed in their last bits
	// from one search to the next, and so every raised score (readme68
	// F9; TestScoresRepeatable): sorted, the same search scores the same.
	slices.Sort(vals)
	mean, sd, n := finiteStats(vals)
	if n < 2 || sd == 0 {
		return
	}
	for i, f := range fused {
		if math.IsInf(f, 0) {
			continue
		}
		if tc := cos[c.Doc(cands[i].ID).ThreadID]; tc > mean {
			fused[i] += gamma * (tc - mean) / sd
		}
	}
}
