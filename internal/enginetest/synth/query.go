package synth

import (
	"slices"
	"strings"
)

// Query is a benchmark query: asked in ThreadID of ResourceID, about
// something said earlier in one of the resource's threads (Target, the id
// of the message the words came from).
type Query struct {
	ResourceID string
	ThreadID   string
	Text       string
	Target     string
}

// stopRank: the first stopRank common words are function words; queries
// take their words from the rest.
const stopRank = 60

// Query generates query i over the first resources resources (all of them
// when resources <= 0 or more than the corpus has). Queries are spread
// round-robin over those resources; each takes 3–6 content words of a
// random user or assistant message of the resource.
func (c *Corpus) Query(i, resources int) Query {
	if resources <= 0 || resources > c.cfg.Resources {
		resources = c.cfg.Resources
	}
	rng := c.rng(streamQuery, uint64(i))
	r := i % resources
	ths := c.byRes[r]
	asked := c.threads[ths[rng.IntN(len(ths))]]
	src := c.Thread(ths[rng.IntN(len(ths))])
	q := Query{ResourceID: ResourceID(r), ThreadID: ThreadID(r, asked.local)}
	stop := map[string]bool{}
	for _, w := range commonWords[:stopRank] {
		stop[w] = true
	}
	for range 8 {
		m := src.Messages[rng.IntN(len(src.Messages))]
		if m.Role == "tool" {
			continue
		}
		var words []string
		for _, w := range strings.Fields(m.Content) {
			w = strings.Trim(w, ".?,")
			if !stop[strings.ToLower(w)] && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		if len(words) < 3 {
			continue
		}
		rng.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
		q.Text = strings.Join(words[:min(len(words), 3+rng.IntN(4))], " ")
		q.Target = m.ID
		return q
	}
	// A thread of very short turns: fall back to its first message's words.
	q.Text, q.Target = src.Messages[0].Content, src.Messages[0].ID
	return q
}
