package pgrecall_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgrecall"
	"github.com/mnemo-go/mnemo/recall"
)

// TestVectorStatusCountsOnlyWhenOwed: a search's vector status reads no
// more than a row or two of its resource's messages and vectors when no
// embedding is owed there (no outbox row): "ok" costs the same whatever
// the resource's size (the statement counted both, two scans of every
// entry of the resource, 14-20 ms at 100,000 messages, on every search).
// Where embeddings are owed it counts them: "degraded: k of n messages
// not embedded yet", exact.
func TestVectorStatusCountsOnlyWhenOwed(t *testing.T) {
	c := newCorpus(rand.New(rand.NewPCG(3, 4)), []string{"A", "B"}, 4, 100)
	owed, inB := 0, 0
	for i := range c.msgs {
		m := &c.msgs[i]
		switch {
		case m.doc.ResourceID == "A" && m.vec == nil: // A: every message embedded
			vs, err := c.emb.Embed(t.Context(), []string{m.doc.Text()})
			if err != nil {
				t.Fatal(err)
			}
			m.vec = vs[0]
		case m.doc.ResourceID == "B":
			inB++
			if m.vec == nil {
				owed++
			}
		}
	}
	if owed == 0 {
		t.Fatal("the corpus owes no embedding in B")
	}
	pool := postgres(t, c, false)
	s := newSearcher(t, pool, recall.Tuning{})
	for _, tc := range []struct {
		resource string
		status   string
		maxRead  float64 // rows of messages and embeddings the statement reads
	}{
		{"A", recall.StatusOK, 2},
		{"B", recall.EmbeddedStatus(inB, inB-owed), 1e9},
	} {
		res, err := s.Search(t.Context(), recall.Query{Text: "beach trip", ResourceID: tc.resource, Options: recall.Options{Mode: recall.ModeVector}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Retrieval.Vector != tc.status {
			t.Errorf("%s: vector status %q, want %q", tc.resource, res.Retrieval.Vector, tc.status)
		}
		var plan []byte
		excl := []string{tc.resource + "-t0-000"}
		if err := pool.QueryRow(t.Context(), "EXPLAIN (ANALYZE, FORMAT JSON) "+pgrecall.StatusSQL, tc.resource, c.emb.ID(), excl).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		var p []struct{ Plan planNode }
		if err := json.Unmarshal(plan, &p); err != nil || len(p) != 1 {
			t.Fatalf("%s: plan %s: %v", tc.resource, plan, err)
		}
		if read := p[0].Plan.rowsOf("messages", "embeddings"); read > tc.maxRead || tc.status != recall.StatusOK && read < float64(inB) {
			t.Errorf("%s: the status read %.0f rows of messages and embeddings (%s), want at most %.0f, and every one of the resource's when embeddings are owed", tc.resource, read, plan, tc.maxRead)
		}
	}
}

// planNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type planNode struct {
	Relation string     `json:"Relation Name"`
	Rows     float64    `json:"Actual Rows"`
	Loops    float64    `json:"Actual Loops"`
	Plans    []planNode `json:"Plans"`
}

// rowsOf returns the rows n and the nodes under it read from the tables.
func (n planNode) rowsOf(tables ...string) float64 {
	var sum float64
	for _, tb := range tables {
		if n.Relation == tb {
			sum += n.Rows * n.Loops
		}
	}
	for _, c := range n.Plans {
		sum += c.rowsOf(tables...)
	}
	return sum
}
