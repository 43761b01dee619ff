package recall

import "math"

// Session topics (Tuning.TopicWeight): each loaded shard keeps, per
// thread, the sum of its messages' vectors, so that the session-topic
// rule (sessionTopic, session.go) scores a candidate's thread by the
// cosine of the query with the thread's mean vector, its centroid, without
// a pass over the thread's vectors per query. The sums are kept up to
// date by putVector and removeDoc (float64, so that adding and subtracting
// a vector leaves only rounding behind); a thread whose last vector is
// removed loses its sum, so no aggregate of an erased message outlives the
// thread's vectors.

// topic is one thread's vector sum and how many vectors it holds.
type topic struct {
	sum []float64
	n   int
}

// topicAdd adds sign × v (+1 or −1) to thread's sum (caller holds s.mu
// for writing). A sum left with no vector is dropped.
func (s *shard) topicAdd(thread string, v []float32, sign float64) {
	if v == nil {
		return
	}
	if s.topics == nil {
		s.topics = map[string]*topic{}
	}
	t := s.topics[thread]
	if t == nil {
		if sign < 0 {
			return
		}
		t = &topic{sum: make([]float64, len(v))}
		s.topics[thread] = t
	}
	for i, x := range v {
		t.sum[i] += sign * float64(x)
	}
	t.n += int(sign)
	if t.n <= 0 {
		clear(t.sum)
		delete(s.topics, thread)
	}
}

// topicCos returns the cosine of qv (unit length) with thread's centroid,
// false when the thread has no vector or its vectors cancel out (caller
// holds s.mu for reading).
func (s *shard) topicCos(thread string, qv []float32) (float64, bool) {
	t := s.topics[thread]
	if t == nil {
		return 0, false
	}
	return CentroidCosine(t.sum, qv)
}

// CentroidCosine returns the cosine of qv (unit length, len(sum)
// dimensions) with the mean of the vectors whose sum is sum — the mean's
// length cancels, so the sum serves — and false when sum is zero (no
// vector, or vectors that cancel out). It is the session-topic rule's
// similarity (Tuning.TopicWeight) on every backend: the shard keeps
// float64 sums, Postgres returns pgvector's float4 sum.
func CentroidCosine[T float32 | float64](sum []T, qv []float32) (float64, bool) {
	var dot, norm float64
	for i, x := range sum {
		dot += float64(x) * float64(qv[i])
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return 0, false
	}
	return dot / math.Sqrt(norm), true
}
