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
	// MessageID is the message's id.
	MessageID string `json:"messageId"`
	// ThreadID is the message's thread.
	ThreadID string `json:"threadId"`
	// Seq is the message's seq in ThreadID.
	Seq int64 `json:"seq"`
	// Role is the message's role.
	Role string `json:"role,omitempty"`
	// CreatedAt is the message's time (not in JSON).
	CreatedAt time.Time `json:"-"`
	// Score is the fused score (higher ranks first); 0 for a range neighbour.
	Score float64 `json:"score"`
	// Lexical is the BM25 score; nil when the lexical channel did not find the message.
	Lexical *float64 `json:"lexicalScore,omitempty"`
	// Vector is the cosine similarity in [-1, 1]; nil when the vector channel did not find it.
	Vector *float64 `json:"vectorScore,omitempty"`
	Reason string   `json:"reason"` // ReasonHit or ReasonRange
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
