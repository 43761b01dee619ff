package pgrecall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-go/mnemo/internal/pgrecall"
	"github.com/mnemo-go/mnemo/recall"
)

// TestFilteredVectorSearchPastDirectLimitExact: a filtered search whose
// filter allows more than directLimit messages ranks the allowed messages
// (and the turns around them) exactly, as recall's exact channel does,
// whatever the HNSW index's scan limits: the same results as the SQLite
// backend with the HNSW scan cut to a tuple or two (hnsw.ef_search and
// hnsw.max_scan_tuples 1; 20,000 tuples by default, fewer than a 100,000-
// message resource). It widened through the index instead, which stops at
// its scan limit: fewer hits than the allowed messages hold.
func TestFilteredVectorSearchPastDirectLimitExact(t *testing.T) {
	for _, share := range []int{0, 8} { // by key; by each channel's index past broadShare
		t.Run(fmt.Sprintf("broadShare=%d", share), func(t *testing.T) {
			pgrecall.SetBroadShareForTest(t, share)
			c := newCorpus(rand.New(rand.NewPCG(21, 5)), []string{"A"}, 10, 60)
			embedAll(t, c)
			pgrecall.SetDirectLimitForTest(t, 8)
			pool := cutHNSWScan(t, postgres(t, c, false))
			ix, pg := sqliteIndex(t, c, recall.Tuning{}), newSearcher(t, pool, recall.Tuning{})
			rng := rand.New(rand.NewPCG(5, 6))
			hits := 0
			for i := range 40 {
				q := recall.Query{Text: vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))], ResourceID: "A"}
				q.Options = recall.Options{Mode: []recall.Mode{recall.ModeVector, recall.ModeHybrid}[i%2], TopK: []int{5, 20}[i/2%2],
					Filter: json.RawMessage([]string{`{"role":"user"}`, `{"metadata.topic":{"$in":["travel","work"]}}`, `{"role":{"$ne":"tool"}}`}[i%3])}
				want, err := ix.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pg.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				sameResult(t, fmt.Sprintf("query %d %q %+v", i, q.Text, q.Options), want, got, 1e-9)
				hits += len(want.Hits)
			}
			if hits < 300 {
				t.Fatalf("only %d hits compared", hits)
			}
		})
	}
}

// TestAllowedRankNoHNSWScan: the statement ranking the allowed messages'
// vectors reads them by the embeddings' primary key and no HNSW index
// (an index scan ordered by distance would filter after its LIMIT: fewer
// rows than exist), even with sequential scans discouraged, and returns
// its LIMIT's rows with the HNSW scan cut (cutHNSWScan).
func TestAllowedRankNoHNSWScan(t *testing.T) {
	c := newCorpus(rand.New(rand.NewPCG(21, 6)), []string{"A"}, 4, 50)
	embedAll(t, c)
	pool := cutHNSWScan(t, postgres(t, c, false))
	if _, err := pool.Exec(t.Context(), "ANALYZE threads, messages, lexical_docs, lexical_df, lexical_stats, embeddings"); err != nil {
		t.Fatal(err)
	}
	var hnsw []string
	// The catalog, not pg_indexes: pg_indexes computes pg_get_indexdef for
	// every schema's embeddings table, and another package's test dropping
	// its schema meanwhile fails the query ("could not open relation with
	// OID …", CI on 3ce84c3).
	rows, err := pool.Query(t.Context(), `SELECT i.relname::text FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_am a ON a.oid = i.relam WHERE x.indrelid = 'embeddings'::regclass AND a.amname = 'hnsw'`)
	if err == nil {
		hnsw, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || len(hnsw) == 0 {
		t.Fatalf("HNSW indexes %v: %v", hnsw, err)
	}
	rows, err = pool.Query(t.Context(), `SELECT id FROM messages WHERE resource_id = 'A' AND role = 'user'`)
	if err != nil {
		t.Fatal(err)
	}
	users, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(users) < 20 {
		t.Fatalf("%d user messages (%v)", len(users), err)
	}
	args := []any{users, c.emb.ID(), pgvector.NewVector(c.msgs[0].vec), 10}
	var plan string
	if err := pool.QueryRow(t.Context(), "EXPLAIN (FORMAT JSON) "+pgrecall.UniverseRankSQL, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	for _, name := range hnsw {
		if strings.Contains(plan, `"`+name+`"`) {
			t.Errorf("the allowed messages' ranking scans HNSW index %s: %s", name, plan)
		}
	}
	if !strings.Contains(plan, `"embeddings_pkey"`) {
		t.Errorf("the allowed messages' ranking does not read embeddings by key: %s", plan)
	}
	got, err := pool.Query(t.Context(), pgrecall.UniverseRankSQL, args...)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(got, pgx.RowTo[string])
	if err != nil || len(ids) != 10 {
		t.Fatalf("%d ids (%v), want 10", len(ids), err)
	}
}

// TestFilteredSearchReadsAllowedOnce: past directLimit, a filtered
// hybrid search reads the messages the filter allows once (restrict),
// both channels ranking that set, with the SQLite backend's results. It
// applied the filter three times: the direct read's first directLimit+1
// rows, then again in each channel's statement (on a 100,000-message
// resource, 70-100 ms each: BENCHMARKS.md).
func TestFilteredSearchReadsAllowedOnce(t *testing.T) {
	c := newCorpus(rand.New(rand.NewPCG(21, 9)), []string{"A"}, 10, 60)
	embedAll(t, c)
	pgrecall.SetDirectLimitForTest(t, 8)
	var reads atomic.Int64
	pool := traced(t, postgres(t, c, false), func(sql string) {
		if strings.Contains(sql, pgrecall.DirectSQL) {
			reads.Add(1)
		}
	})
	ix, pg := sqliteIndex(t, c, recall.Tuning{}), newSearcher(t, pool, recall.Tuning{})
	for i, text := range []string{"travel dog", "beach museum", "running"} {
		q := recall.Query{Text: text, ResourceID: "A", Options: recall.Options{Mode: recall.ModeHybrid, TopK: 10,
			Filter: json.RawMessage([]string{`{"role":"user","metadata.topic":"travel"}`, `{"role":"user"}`}[i%2])}}
		reads.Store(0)
		got, err := pg.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if n := reads.Load(); n != 1 {
			t.Errorf("query %d %q: the allowed messages read %d times, want 1", i, text, n)
		}
		want, err := ix.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, fmt.Sprintf("query %d %q", i, text), want, got, 1e-9)
		if len(want.Hits) == 0 {
			t.Fatalf("query %d %q: no hits", i, text)
		}
	}
}

// embedAll embeds every message of c the corpus left unembedded.
func embedAll(t testing.TB, c *corpus) {
	t.Helper()
	for i := range c.msgs {
		if c.msgs[i].vec == nil {
			vs, err := c.emb.Embed(t.Context(), []string{c.msgs[i].doc.Text()})
			if err != nil {
				t.Fatal(err)
			}
			c.msgs[i].vec = vs[0]
		}
	}
}

// cutHNSWScan returns a pool on pool's database whose connections visit
// at most one tuple of an HNSW index per scan, and prefer an index to a
// sequential scan (as the planner does on a large table).
func cutHNSWScan(t testing.TB, pool *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	cfg := pool.Config()
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if after != nil {
			if err := after(ctx, c); err != nil {
				return err
			}
		}
		_, err := c.Exec(ctx, `SET hnsw.ef_search = 1; SET hnsw.max_scan_tuples = 1; SET enable_seqscan = off`)
		return err
	}
	p, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestFilteredLexicalSearchPastDirectLimitExact: a filtered lexical or
// hybrid search whose filter allows more than directLimit messages ranks
// the allowed messages and the turns around them (which lift them by the
// context rule) exactly: the SQLite backend's results, for parity
// queries (dates, answer types, compounds, speakers, exclusions, thread
// scope, ranges) under filters that allow from a twentieth of the
// messages to most of them.
func TestFilteredLexicalSearchPastDirectLimitExact(t *testing.T) {
	for _, share := range []int{0, 8} { // by key; by each channel's index past broadShare
		t.Run(fmt.Sprintf("broadShare=%d", share), func(t *testing.T) {
			pgrecall.SetBroadShareForTest(t, share)
			c := newCorpus(rand.New(rand.NewPCG(21, 7)), []string{"A", "B"}, 8, 60)
			pgrecall.SetDirectLimitForTest(t, 8)
			pool := postgres(t, c, true)
			ix, pg := sqliteIndex(t, c, recall.Tuning{}), newSearcher(t, pool, recall.Tuning{})
			filters := []string{`{"role":"user","metadata.topic":"travel"}`, `{"role":"user"}`, `{"metadata.topic":{"$in":["travel","work"]}}`,
				`{"role":{"$ne":"tool"}}`, `{"$or":[{"role":"tool"},{"metadata.topic":"family"}]}`, `{"metadata.place.city":"Oslo"}`}
			rng := rand.New(rand.NewPCG(7, 8))
			hits := 0
			for i := range 60 {
				q := parityQuery(rng, c)
				q.Options.Mode = []recall.Mode{recall.ModeLexical, recall.ModeHybrid}[i%2]
				q.Options.Filter = json.RawMessage(filters[i/2%len(filters)])
				want, err := ix.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := pg.Search(t.Context(), q)
				if err != nil {
					t.Fatal(err)
				}
				sameResult(t, fmt.Sprintf("query %d %q %+v exclude %d", i, q.Text, q.Options, len(q.Exclude)), want, got, 1e-9)
				hits += len(want.Hits)
			}
			if hits < 300 {
				t.Fatalf("only %d hits compared", hits)
			}
		})
	}
}

// TestFilteredLexicalRankingOneStatement: past directLimit, a filtered
// lexical search ranks the matches among the allowed messages in one
// statement, however few of the top matches the filter allows; it
// widened ×4 instead, each time ranking the resource's matches again and
// reading the top n and the two turns around each (12 s a search on a
// 100,000-message resource whose filter allows 4,497: BENCHMARKS.md).
func TestFilteredLexicalRankingOneStatement(t *testing.T) {
	c := newCorpus(rand.New(rand.NewPCG(21, 8)), []string{"A"}, 10, 60)
	pgrecall.SetDirectLimitForTest(t, 8)
	var ranked atomic.Int64
	pool := traced(t, postgres(t, c, false), func(sql string) {
		if strings.Contains(sql, "FROM lexical_docs d") && strings.Contains(sql, "AS len") {
			ranked.Add(1)
		}
	})
	ix, pg := sqliteIndex(t, c, recall.Tuning{}), newSearcher(t, pool, recall.Tuning{})
	for i, text := range []string{"travel dog", "beach museum", "running"} {
		q := recall.Query{Text: text, ResourceID: "A", Options: recall.Options{Mode: recall.ModeLexical, TopK: 10,
			Filter: json.RawMessage(`{"role":"user","metadata.topic":"travel"}`)}}
		ranked.Store(0)
		got, err := pg.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if n := ranked.Load(); n != 1 {
			t.Errorf("query %d %q: %d ranking statements, want 1", i, text, n)
		}
		want, err := ix.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, fmt.Sprintf("query %d %q", i, text), want, got, 1e-9)
		if len(want.Hits) == 0 {
			t.Fatalf("query %d %q: no hits", i, text)
		}
	}
}

// traced returns a pool on pool's database that calls seen with each
// statement it runs.
func traced(t testing.TB, pool *pgxpool.Pool, seen func(sql string)) *pgxpool.Pool {
	t.Helper()
	cfg := pool.Config()
	cfg.ConnConfig.Tracer = statementTracer(seen)
	p, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// statementTracer is a pgx.QueryTracer calling itself with each
// statement.
type statementTracer func(sql string)

func (f statementTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	f(d.SQL)
	return ctx
}

func (statementTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestBroadFilterRanksByIndex: a filter allowing more than a
// broadShare-th of the resource is checked on each channel's candidates,
// which the channel ranks by its own index (the HNSW index, the lexical
// ranking of the resource's matches): no statement is sent the allowed
// messages' ids (universeRankSQL, allowedMatchesSQL), and the results are the SQLite
// backend's, in every mode, with and without an exclusion; with the HNSW
// scan cut (cutHNSWScan) the vector channel ranks the allowed messages
// exactly instead. Each search read and sent every allowed id (on
// 100,000 messages with half allowed: over a second a channel,
// BENCHMARKS.md).
func TestBroadFilterRanksByIndex(t *testing.T) {
	c := newCorpus(rand.New(rand.NewPCG(21, 10)), []string{"A"}, 10, 60)
	embedAll(t, c)
	pgrecall.SetDirectLimitForTest(t, 8)
	var byKey atomic.Int64
	base := postgres(t, c, false)
	pool := traced(t, base, func(sql string) {
		if strings.Contains(sql, pgrecall.UniverseRankSQL) || strings.Contains(sql, "::bool[]") {
			byKey.Add(1)
		}
	})
	ix := sqliteIndex(t, c, recall.Tuning{})
	var exact atomic.Int64 // the cut index's fallback: the allowed messages ranked by key
	cutPool := traced(t, cutHNSWScan(t, base), func(sql string) {
		if strings.Contains(sql, pgrecall.UniverseRankSQL) {
			exact.Add(1)
		}
	})
	pg, cut := newSearcher(t, pool, recall.Tuning{}), newSearcher(t, cutPool, recall.Tuning{})
	rng := rand.New(rand.NewPCG(5, 7))
	hits := 0
	for i := range 36 {
		q := recall.Query{Text: vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))], ResourceID: "A"}
		q.Options = recall.Options{Mode: []recall.Mode{recall.ModeVector, recall.ModeLexical, recall.ModeHybrid}[i%3], TopK: []int{5, 20}[i/3%2],
			Filter: json.RawMessage([]string{`{"role":"user"}`, `{"role":{"$ne":"tool"}}`, `{"seq":{"$gte":10}}`}[i/6%3])}
		if i%4 == 3 {
			q.Exclude = map[string]bool{"A-t1-003": true, "A-t2-010": true, "A-t4-021": true}
		}
		want, err := ix.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		byKey.Store(0)
		got, err := pg.Search(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("query %d %q %+v", i, q.Text, q.Options)
		if n := byKey.Load(); n != 0 {
			t.Errorf("%s: %d statements sent the allowed ids, want 0", name, n)
		}
		sameResult(t, name, want, got, 1e-9)
		if got, err = cut.Search(t.Context(), q); err != nil {
			t.Fatal(err)
		}
		sameResult(t, name+" (HNSW scan cut)", want, got, 1e-9)
		hits += len(want.Hits)
	}
	if hits < 250 || exact.Load() == 0 {
		t.Fatalf("only %d hits compared; the cut index fell back %d times", hits, exact.Load())
	}
}
