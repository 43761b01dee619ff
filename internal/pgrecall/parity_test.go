package pgrecall_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgrecall"
	"github.com/mnemo-go/mnemo/recall"
)

// parityFilters are the filters the parity queries draw from: each field,
// each operator family, nested metadata, absent keys and an empty match.
var parityFilters = []string{
	``,
	`{"role":"user"}`,
	`{"role":{"$in":["assistant","tool"]}}`,
	`{"metadata.topic":"travel"}`,
	`{"metadata.topic":{"$nin":["travel","work"]}}`,
	`{"metadata.n":{"$gte":3,"$lt":8}}`,
	`{"metadata.place.city":"Oslo"}`,
	`{"metadata.flag":true}`,
	`{"seq":{"$lte":6}}`,
	`{"createdAt":{"$gte":"2023-01-01T00:00:00Z"}}`,
	`{"$or":[{"role":"tool"},{"metadata.topic":"family"}]}`,
	`{"$not":{"role":"user"}}`,
	`{"threadId":"A-t1"}`,
	`{"threadId":"no-such-thread"}`,
}

// parityQuery draws one search over c: text from the vocabulary, with a
// date, a relative date with the time it is asked (Query.At), a speaker,
// a compound identifier or a question asking for an
// answer type ("How long …", "When …", "How many …") at times; any mode, scope,
// filter, exclusion, topK, threshold, fusion and range.
func parityQuery(rng *rand.Rand, c *corpus) recall.Query {
	r := c.resources[rng.IntN(len(c.resources))]
	words := []string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]}
	switch rng.IntN(9) {
	case 4:
		words = append([]string{"How long"}, words...)
	case 6:
		words = append([]string{"How many"}, words...)
	case 5:
		words = append([]string{"When did"}, words...)
	case 0:
		words = append(words, []string{"in May 2022", "on March 14, 2023", "in October", "during July"}[rng.IntN(4)])
	case 1:
		words = append(words, speakers[rng.IntN(3)])
	case 2:
		words = append(words, "ZEPHYR-QUOTE")
	case 3:
		words = words[:1]
	}
	var at time.Time
	if rng.IntN(9) == 7 {
		// A question's own relative date, asked a day to a month after a
		// message of the corpus (its period then holds some messages).
		words = append(words, []string{"yesterday", "last week", "two days ago", "last month", "last Friday", "a few days ago"}[rng.IntN(6)])
		at = c.msgs[rng.IntN(len(c.msgs))].doc.CreatedAt.Add(time.Duration(24+rng.IntN(30*24)) * time.Hour)
	}
	q := recall.Query{Text: strings.Join(words, " "), ResourceID: r, At: at}
	o := &q.Options
	o.Mode = []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid, ""}[rng.IntN(4)]
	o.TopK = []int{0, 1, 3, 10, 40}[rng.IntN(5)]
	o.Filter = json.RawMessage(parityFilters[rng.IntN(len(parityFilters))])
	if rng.IntN(3) == 0 {
		o.Scope = recall.ScopeThread
		q.ThreadID = c.threads[r][rng.IntN(len(c.threads[r]))]
	}
	if rng.IntN(3) == 0 {
		o.MessageRange = recall.Range{Before: rng.IntN(3), After: rng.IntN(3)}
	}
	if rng.IntN(6) == 0 {
		o.Fusion = recall.FusionRRF
	}
	if rng.IntN(6) == 0 {
		o.Threshold = 0.1
	}
	if rng.IntN(3) == 0 {
		q.Exclude = map[string]bool{}
		for range 1 + rng.IntN(30) {
			m := c.msgs[rng.IntN(len(c.msgs))].doc
			q.Exclude[m.ID] = true
		}
	}
	return q
}

// TestParityWithSQLiteBackend runs the same queries through the SQLite
// backend's recall.Index and through the Postgres searcher over one
// corpus (vectors searched exactly on both) and wants the same result:
// hits, reasons, ranks, order, scores (within 1e-9; fused scores within
// 1e-5 with the session topic) and statuses; the
// same errors for invalid queries.
func TestParityWithSQLiteBackend(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	c := newCorpus(rng, []string{"A", "B"}, 6, 32)
	pool := postgres(t, c, true)
	for ti, tc := range []struct {
		tuning recall.Tuning
		tol    float64
		direct int // directLimit; 0 leaves it
	}{
		{recall.Tuning{}, 1e-9, 0},
		{recall.Tuning{}, 1e-9, 6}, // filters widen instead
		{recall.Tuning{SessionWeight: 0.15, VectorWeight: 0.5}, 1e-9, 0},
		{recall.Tuning{ContextWeight: -1, NoCompounds: true, NoDates: true, MaxNorm: true}, 1e-9, 0},
		{recall.Tuning{NoAnswerTypes: true}, 1e-9, 0},
		{recall.Tuning{NoTurnAfter: true, CandidatePool: 20}, 1e-9, 0},
		{recall.Tuning{NoTurnAfter: true, CandidatePool: 20}, 1e-9, 3},
		// The session topic's centroids are pgvector's sum (float4 result):
		// fused scores agree to about 1e-7.
		{recall.Tuning{SessionWeight: 0.15, TopicWeight: 0.15, VectorWeight: 0.5}, 1e-5, 0},
		// The speaker rule (on by default in the rows above, whose queries
		// name speakers): off, and weaker without session evidence.
		{recall.Tuning{SpeakerWeight: -1}, 1e-9, 0},
		{recall.Tuning{SpeakerWeight: 0.5, SessionWeight: -1}, 1e-9, 0},
		// The date rule (on by default in the rows above, whose queries
		// name dates, absolute and relative, and whose messages carry
		// relative dates): off, and weaker without session evidence.
		{recall.Tuning{DateWeight: -1}, 1e-9, 0},
		{recall.Tuning{DateWeight: 0.5, SessionWeight: -1}, 1e-9, 0},
	} {
		t.Run(fmt.Sprintf("%d", ti), func(t *testing.T) {
			tuning := tc.tuning
			if tc.direct > 0 {
				pgrecall.SetDirectLimitForTest(t, tc.direct)
			}
			ix := sqliteIndex(t, c, tuning)
			pg := newSearcher(t, pool, tuning)
			hits := 0
			for i := range 150 {
				q := parityQuery(rng, c)
				want, werr := ix.Search(t.Context(), q)
				got, gerr := pg.Search(t.Context(), q)
				name := fmt.Sprintf("tuning %+v query %d %q %+v exclude %d", tuning, i, q.Text, q.Options, len(q.Exclude))
				if (werr != nil) != (gerr != nil) {
					t.Fatalf("%s: SQLite error %v, Postgres %v", name, werr, gerr)
				}
				if werr != nil {
					continue
				}
				sameResult(t, name, want, got, tc.tol)
				hits += len(want.Hits)
			}
			t.Logf("tuning %+v, direct limit %d: %d hits equal", tuning, tc.direct, hits)
			if hits < 500 {
				t.Fatalf("tuning %+v: only %d hits compared", tuning, hits)
			}
		})
	}
}

// TestParityTimeZones: with resources in time zones west and east of UTC
// (recall.Config.Location, pgrecall.Config.Location), both backends read
// the dates of queries and messages, and the relative dates of both, in
// the resource's zone and give the same results.
func TestParityTimeZones(t *testing.T) {
	la, err1 := time.LoadLocation("America/Los_Angeles")
	tokyo, err2 := time.LoadLocation("Asia/Tokyo")
	if err1 != nil || err2 != nil {
		t.Skipf("no tzdata: %v %v", err1, err2)
	}
	rng := rand.New(rand.NewPCG(23, 9))
	c := newCorpus(rng, []string{"A", "B", "C"}, 4, 32)
	c.zones = map[string]*time.Location{"A": la, "B": tokyo}
	pool := postgres(t, c, true)
	ix := sqliteIndex(t, c, recall.Tuning{})
	pg, err := pgrecall.New(pgrecall.Config{Pool: pool, Embedder: recall.HashEmbedder{}, Location: c.location})
	if err != nil {
		t.Fatal(err)
	}
	dated := 0
	for i := range 300 {
		q := parityQuery(rng, c)
		want, werr := ix.Search(t.Context(), q)
		got, gerr := pg.Search(t.Context(), q)
		name := fmt.Sprintf("query %d %q at %v in %s %+v", i, q.Text, q.At, q.ResourceID, q.Options)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%s: SQLite error %v, Postgres %v", name, werr, gerr)
		}
		if werr != nil {
			continue
		}
		sameResult(t, name, want, got, 1e-9)
		if len(recall.QueryDates(q.Text, q.At, c.location(q.ResourceID))) > 0 {
			dated++
		}
	}
	if dated < 40 {
		t.Fatalf("only %d queries with a date", dated)
	}
}

// TestParityInvalidQueries: both backends refuse the same queries with the
// same errors.
func TestParityInvalidQueries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := newCorpus(rng, []string{"A"}, 1, 4)
	ix := sqliteIndex(t, c, recall.Tuning{})
	pg := newSearcher(t, postgres(t, c, false), recall.Tuning{})
	for _, q := range []recall.Query{
		{Text: "dog"},
		{Text: "dog", ResourceID: "A", Options: recall.Options{Scope: recall.ScopeThread}},
		{Text: "dog", ResourceID: "A", Options: recall.Options{TopK: -1}},
		{Text: "dog", ResourceID: "A", Options: recall.Options{Mode: "fuzzy"}},
		{Text: "dog", ResourceID: "A", Options: recall.Options{Filter: json.RawMessage(`{"colour":"red"}`)}},
		{Text: "dog", ResourceID: "A", Options: recall.Options{Filter: json.RawMessage(`{"seq":{"$gt":"x"}}`)}},
		{Text: "dog", ResourceID: "A", Options: recall.Options{MessageRange: recall.Range{Before: 99}}},
	} {
		_, werr := ix.Search(t.Context(), q)
		_, gerr := pg.Search(t.Context(), q)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Errorf("query %+v: SQLite %v, Postgres %v", q, werr, gerr)
		}
		for _, sentinel := range []error{recall.ErrInvalidQuery, recall.ErrInvalidOptions, recall.ErrInvalidFilter} {
			if errors.Is(werr, sentinel) != errors.Is(gerr, sentinel) {
				t.Errorf("query %+v: errors.Is(%v) differs: %v / %v", q, sentinel, werr, gerr)
			}
		}
	}
}

// sameResult fails t unless got equals want: the hits in order with the
// same ids, reasons, ranks and scores, and the same Retrieval.
func sameResult(t *testing.T, name string, want, got *recall.Result, tol float64) {
	t.Helper()
	if want.Retrieval != got.Retrieval {
		t.Fatalf("%s: retrieval %+v, want %+v", name, got.Retrieval, want.Retrieval)
	}
	if len(got.Hits) != len(want.Hits) {
		t.Fatalf("%s: %d hits, want %d\n got %s\nwant %s", name, len(got.Hits), len(want.Hits), describe(got.Hits), describe(want.Hits))
	}
	for i, w := range want.Hits {
		g := got.Hits[i]
		if g.MessageID != w.MessageID || g.Reason != w.Reason || g.Rank != w.Rank || g.ThreadID != w.ThreadID || g.Seq != w.Seq ||
			g.Role != w.Role || !g.CreatedAt.Equal(w.CreatedAt) || !close(g.Score, w.Score, tol) || !closePtr(g.Lexical, w.Lexical, 1e-9) || !closePtr(g.Vector, w.Vector, 1e-9) {
			t.Fatalf("%s: hit %d differs\n got %s\nwant %s", name, i, describe(got.Hits), describe(want.Hits))
		}
	}
}

func close(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }

func closePtr(a, b *float64, tol float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return close(*a, *b, tol)
}

func describe(hs []recall.Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "\n  %s %s#%d %.6f", h.MessageID, h.Reason, h.Rank, h.Score)
		if h.Lexical != nil {
			fmt.Fprintf(&b, " lex %.6f", *h.Lexical)
		}
		if h.Vector != nil {
			fmt.Fprintf(&b, " vec %.6f", *h.Vector)
		}
	}
	return b.String()
}

// TestParitySpeakerRule: questions naming a speaker or the assistant
// ("… you suggested") rank alike on both backends, with the rule at its
// default and off, and the rule moves some result (it runs).
func TestParitySpeakerRule(t *testing.T) {
	ruleParity(t, "the speaker rule", 16, 40, recall.Tuning{SpeakerWeight: -1}, func(w1, w2 string, i int) string {
		return []string{w1 + " " + w2 + " that you suggested", speakers[i%3] + " said " + w1 + " " + w2}[i%2]
	})
}

// TestParityExchangeOrder: questions that ask for a recommendation, what
// the assistant suggested or about "our previous chat" rank alike on both
// backends, with the exchange order rule on and off, and the rule moves
// some result (it runs).
func TestParityExchangeOrder(t *testing.T) {
	ruleParity(t, "the exchange order rule", 17, 60, recall.Tuning{NoExchangeOrder: true}, func(w1, w2 string, i int) string {
		return []string{"any tips on " + w1 + " " + w2 + "?", w1 + " " + w2 + " that you suggested", "in our previous chat about " + w1 + " " + w2}[i%3]
	})
}

// ruleParity asks n queries (query of two vocabulary words and the
// query's number) of a corpus of seed on both backends, with the default
// tuning and with off (a fusion rule turned off): the results must be the
// same on both backends, and rule must change at least one of them.
func ruleParity(t *testing.T, rule string, seed uint64, n int, off recall.Tuning, query func(w1, w2 string, i int) string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, seed))
	c := newCorpus(rng, []string{"A"}, 4, 32)
	pool := postgres(t, c, true)
	results := map[int][]string{}
	for _, tuning := range []recall.Tuning{{}, off} {
		ix := sqliteIndex(t, c, tuning)
		pg := newSearcher(t, pool, tuning)
		for i := range n {
			text := query(vocab[i%len(vocab)], vocab[(i*7+3)%len(vocab)], i)
			q := recall.Query{Text: text, ResourceID: "A", Options: recall.Options{TopK: 10}}
			want, werr := ix.Search(t.Context(), q)
			got, gerr := pg.Search(t.Context(), q)
			if werr != nil || gerr != nil {
				t.Fatalf("%q: SQLite %v, Postgres %v", text, werr, gerr)
			}
			sameResult(t, fmt.Sprintf("tuning %+v query %q", tuning, text), want, got, 1e-9)
			var ids []string
			recall.SortByRank(want.Hits)
			for _, h := range want.Hits {
				ids = append(ids, h.MessageID)
			}
			results[i] = append(results[i], strings.Join(ids, ","))
		}
	}
	moved := 0
	for _, r := range results {
		if r[0] != r[1] {
			moved++
		}
	}
	if moved == 0 {
		t.Fatalf("%s changed no result: the test does not exercise it", rule)
	}
	t.Logf("%s changed %d of %d results", rule, moved, len(results))
}
