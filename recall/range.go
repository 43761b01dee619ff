package recall

import (
	"fmt"
	"strings"
)

// neighbourFunc returns the messages of thread whose seq lies in
// [from, to], in seq order, as hits (only MessageID, ThreadID, Seq, Role and
// CreatedAt are read). It may leave out messages the caller must not recall
// (for instance those already in the recent window).
type neighbourFunc func(threadID string, from, to int64) ([]Hit, error)

// expandRange adds to hits the neighbours that r asks for and returns the
// expanded set, deduplicated and ordered by thread and seq (sortByThreadSeq).
//
// Each hit at seq s brings the messages of its own thread in
// [s−r.Before, s+r.After] (Before earlier messages, After later ones; the
// bounds are those of the hit alone, so ranges never chain and never grow to
// the whole thread). A message that is itself a hit keeps its hit entry; a
// neighbour of several hits is listed once, with the best (lowest) rank. The
// input hits are not modified. A zero range returns the hits sorted.
func expandRange(hits []Hit, r Range, lookup neighbourFunc) ([]Hit, error) {
	if !r.valid() {
		o := Options{MessageRange: r}
		return nil, o.Validate()
	}
	out := make([]Hit, 0, len(hits)*(1+r.Before+r.After))
	index := map[string]int{}
	for _, h := range hits {
		if _, dup := index[h.MessageID]; dup {
			continue
		}
		index[h.MessageID] = len(out)
		out = append(out, h)
	}
	if r.Before > 0 || r.After > 0 {
		for _, h := range hits {
			from := max(h.Seq-int64(r.Before), 1)
			to := h.Seq + int64(r.After)
			ns, err := lookup(h.ThreadID, from, to)
			if err != nil {
				return nil, fmt.Errorf("recall: neighbours of %s: %w", h.MessageID, err)
			}
			for _, n := range ns {
				if n.ThreadID != h.ThreadID || n.Seq < from || n.Seq > to {
					continue // a lookup that overreaches never widens the range
				}
				if i, ok := index[n.MessageID]; ok {
					if out[i].Reason == ReasonRange && h.Rank < out[i].Rank {
						out[i].Rank = h.Rank
					}
					continue
				}
				index[n.MessageID] = len(out)
				out = append(out, Hit{
					MessageID: n.MessageID, ThreadID: n.ThreadID, Seq: n.Seq, Role: n.Role,
					CreatedAt: n.CreatedAt, Reason: ReasonRange, Rank: h.Rank,
				})
			}
		}
	}
	sortByThreadSeq(out)
	return out, nil
}

// valid reports whether each side of r is within [0, MaxMessageRange].
func (r Range) valid() bool {
	return r.Before >= 0 && r.After >= 0 && r.Before <= MaxMessageRange && r.After <= MaxMessageRange
}

// parseRange parses the command-line form of a message range: "N" (both
// sides), "B,A", or the JSON forms of Range.
func parseRange(s string) (Range, error) {
	var r Range
	s = strings.TrimSpace(s)
	if b, a, ok := strings.Cut(s, ","); ok && !strings.HasPrefix(s, "{") {
		s = fmt.Sprintf(`{"before":%s,"after":%s}`, strings.TrimSpace(b), strings.TrimSpace(a))
	}
	if err := r.UnmarshalJSON([]byte(s)); err != nil {
		return Range{}, err
	}
	o := Options{MessageRange: r}
	return r, o.Validate()
}
