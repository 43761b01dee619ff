package recall

import (
	"cmp"
	"slices"
	"time"
)

// Hit is one recalled message.
//
// Score is the fused score in hybrid mode and the channel's own score in
// lexical or vector mode; larger is better, and scores compare only within
// one search. Lexical is the textbook BM25 score (k1 = 1.2, b = 0.75) over the
// resource's messages; Vector is the cosine similarity between the query's and
// the message's embeddings. Each is nil when the channel did not run or (for
// Vector) when the message has no embedding yet. Range neighbours carry no
// scores.
type Hit struct {
	MessageID string    `json:"messageId"`
	ThreadID  string    `json:"threadId"`
	Seq       int64     `json:"seq"`
	Role      string    `json:"role,omitempty"`
	CreatedAt time.Time `json:"-"`
	Score     float64   `json:"score"`
	Lexical   *float64  `json:"lexicalScore,omitempty"`
	Vector    *float64  `json:"vectorScore,omitempty"`
	Reason    string    `json:"reason"` // ReasonHit or ReasonRange
	// Rank is the 1-based rank of the hit; for a range neighbour, the rank
	// of the best hit that brought it.
	Rank int `json:"rank"`
}

// sortByThreadSeq orders hits by thread, then seq. Threads come in the order
// of their earliest message's creation time (ties by thread id), so recalled
// sessions read chronologically.
func sortByThreadSeq(hits []Hit) {
	first := map[string]time.Time{}
	for _, h := range hits {
		if t, ok := first[h.ThreadID]; !ok || h.CreatedAt.Before(t) {
			first[h.ThreadID] = h.CreatedAt
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.ThreadID != b.ThreadID {
			if c := first[a.ThreadID].Compare(first[b.ThreadID]); c != 0 {
				return c
			}
			return cmp.Compare(a.ThreadID, b.ThreadID)
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
}

// SortByRank orders hits by rank, each hit followed by its range
// neighbours in seq order (the order of `mnemo search` output).
func SortByRank(hits []Hit) {
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
			return c
		}
		ah, bh := a.Reason == ReasonHit, b.Reason == ReasonHit
		if ah != bh {
			if ah {
				return -1
			}
			return 1
		}
		if a.ThreadID != b.ThreadID {
			return cmp.Compare(a.ThreadID, b.ThreadID)
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
}
