package pgrecall_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgrecall"
	"github.com/mnemo-go/mnemo/recall"
)

// randomFilter composes a filter of one to three conditions over every
// field, sometimes under $or or $not.
func randomFilter(rng *rand.Rand, c *corpus) string {
	conds := []func() string{
		func() string { return fmt.Sprintf(`{"role":%q}`, []string{"user", "assistant", "tool"}[rng.IntN(3)]) },
		func() string { return fmt.Sprintf(`{"seq":{"$gte":%d}}`, rng.IntN(20)) },
		func() string { return fmt.Sprintf(`{"seq":{"$lt":%d}}`, 1+rng.IntN(20)) },
		func() string { return fmt.Sprintf(`{"metadata.topic":%q}`, topics[rng.IntN(len(topics))]) },
		func() string { return fmt.Sprintf(`{"metadata.n":{"$in":[%d,%d]}}`, rng.IntN(10), rng.IntN(10)) },
		func() string { return `{"metadata.place.city":{"$ne":"Oslo"}}` },
		func() string {
			return fmt.Sprintf(`{"createdAt":{"$lt":%d}}`, c.msgs[rng.IntN(len(c.msgs))].doc.CreatedAt.UnixMilli())
		},
		func() string {
			r := c.resources[rng.IntN(len(c.resources))]
			return fmt.Sprintf(`{"threadId":%q}`, c.threads[r][rng.IntN(len(c.threads[r]))])
		},
	}
	pick := func() string { return conds[rng.IntN(len(conds))]() }
	switch rng.IntN(4) {
	case 0:
		return pick()
	case 1:
		return fmt.Sprintf(`{"$and":[%s,%s]}`, pick(), pick())
	case 2:
		return fmt.Sprintf(`{"$or":[%s,%s,%s]}`, pick(), pick(), pick())
	}
	return fmt.Sprintf(`{"$not":%s}`, pick())
}

// TestFilterExclusionTopKProperty searches random corpora (HNSW index in
// place) with random filters, exclusions, scopes and topK in every mode
// and checks what must always hold: no message of another resource or
// thread, no disallowed hit, no excluded message at all, and never fewer
// than topK hits when that many allowed messages match.
func TestFilterExclusionTopKProperty(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			if seed%2 == 1 {
				pgrecall.SetDirectLimitForTest(t, 5) // filters widen instead
			}
			rng := rand.New(rand.NewPCG(seed, 99))
			c := newCorpus(rng, []string{"A", "B", "C"}, 2+rng.IntN(6), 5+rng.IntN(40))
			pg := newSearcher(t, postgres(t, c, false), recall.Tuning{CandidatePool: 1 + rng.IntN(20)})
			for i := range 120 {
				q := recall.Query{Text: vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))], ResourceID: c.resources[rng.IntN(3)]}
				q.Options = recall.Options{TopK: 1 + rng.IntN(30), Mode: []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid}[rng.IntN(3)],
					Filter: json.RawMessage(randomFilter(rng, c)), MessageRange: recall.Range{Before: rng.IntN(2), After: rng.IntN(2)}}
				if rng.IntN(3) == 0 {
					q.Options.Scope = recall.ScopeThread
					q.ThreadID = c.threads[q.ResourceID][rng.IntN(len(c.threads[q.ResourceID]))]
				}
				q.Exclude = map[string]bool{}
				for range rng.IntN(40) {
					q.Exclude[c.msgs[rng.IntN(len(c.msgs))].doc.ID] = true
				}
				checkProperty(t, fmt.Sprintf("seed %d query %d %+v", seed, i, q), c, pg, q)
			}
		})
	}
}

// checkProperty runs q and checks the invariants against the corpus.
func checkProperty(t *testing.T, name string, c *corpus, pg *pgrecall.Searcher, q recall.Query) {
	t.Helper()
	res, err := pg.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p, _ := q.Prepare()
	byID := map[string]*message{}
	for i := range c.msgs {
		byID[c.msgs[i].doc.ID] = &c.msgs[i]
	}
	allowed := func(m *message) bool {
		return m.doc.ResourceID == q.ResourceID && (p.Thread == "" || m.doc.ThreadID == p.Thread) && !q.Exclude[m.doc.ID] && p.Filter.Match(&m.doc)
	}
	hits := 0
	for _, h := range res.Hits {
		m := byID[h.MessageID]
		switch {
		case m == nil || m.doc.ResourceID != q.ResourceID:
			t.Fatalf("%s: %s is not a message of resource %s", name, h.MessageID, q.ResourceID)
		case q.Exclude[h.MessageID]:
			t.Fatalf("%s: excluded %s returned (%s)", name, h.MessageID, h.Reason)
		case h.Reason == recall.ReasonHit && !allowed(m):
			t.Fatalf("%s: hit %s is not allowed (thread %s, filter %s)", name, h.MessageID, p.Thread, q.Options.Filter)
		case h.Reason == recall.ReasonHit:
			hits++
		}
	}
	// Lower bound: every allowed message holding a query term is a
	// lexical candidate; every allowed embedded one a vector candidate.
	qterms := recall.Analyze(q.Text)
	var lexical, vector int
	for i := range c.msgs {
		m := &c.msgs[i]
		if !allowed(m) {
			continue
		}
		if m.vec != nil {
			vector++
		}
		for _, term := range recall.Analyze(m.doc.Text()) {
			if slices.Contains(qterms, term) {
				lexical++
				break
			}
		}
	}
	want := map[recall.Mode]int{recall.ModeLexical: lexical, recall.ModeVector: vector, recall.ModeHybrid: max(lexical, vector)}[p.Options.Mode]
	if hits < min(p.Options.TopK, want) {
		t.Fatalf("%s: %d hits, want at least %d (%d allowed messages match)", name, hits, min(p.Options.TopK, want), want)
	}
}
