package pgstore_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// textbook computes a resource's BM25 statistics from its documents' terms
// as recall's bm25Stats does (n, total length, documents per term), and
// the documents carrying each answer type as recall's typeDF does.
func textbook(docs []pgstore.LexicalDoc, resource string) pgstore.BM25Stats {
	s := pgstore.BM25Stats{DF: map[string]int64{}}
	for _, d := range docs {
		if d.ResourceID != resource {
			continue
		}
		s.Docs++
		for i := range s.AnswerDF {
			if d.AnswerBits&(1<<i) != 0 {
				s.AnswerDF[i]++
			}
		}
		s.TotalLen += int64(len(d.Terms))
		seen := map[string]bool{}
		for _, t := range d.Terms {
			if !seen[t] {
				seen[t] = true
				s.DF[t]++
			}
		}
	}
	return s
}

func checkStats(t *testing.T, q pgstore.Querier, docs []pgstore.LexicalDoc, resource string) {
	t.Helper()
	want := textbook(docs, resource)
	terms := slices.Collect(maps.Keys(want.DF))
	got, err := pgstore.Stats(t.Context(), q, resource, append(terms, "never-seen"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Docs != want.Docs || got.TotalLen != want.TotalLen || !maps.Equal(got.DF, want.DF) || got.AnswerDF != want.AnswerDF {
		t.Fatalf("stats of %s:\n got %d docs, %d terms, df %v, answer types %v\nwant %d docs, %d terms, df %v, answer types %v",
			resource, got.Docs, got.TotalLen, got.DF, got.AnswerDF, want.Docs, want.TotalLen, want.DF, want.AnswerDF)
	}
}

// inTx runs fn in a transaction on pool and commits.
func inTx(t *testing.T, pool *pgxpool.Pool, fn func(tx pgx.Tx) error) {
	t.Helper()
	if err := pgx.BeginFunc(t.Context(), pool, fn); err != nil {
		t.Fatal(err)
	}
}

func TestLexicalStats(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t))
	ctx := t.Context()
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	defer lex.Close()
	seedMessages(t, pool, []string{"A", "B"}, 8)
	texts := []string{
		"The running dogs can't stop at ZEPHYR-QUOTE v1.2",
		"Résumé of Straße İstanbul: the dog runs, runs and runs",
		"",
		"I'd like a quote for order_id 42 please",
		"ＦＵＬＬ width and ﬁne ligatures",
		"dogs dogs dogs",
		"We stayed two weeks in Oslo, back in 2021",
		"I went to the support group yesterday",
	}
	var docs []pgstore.LexicalDoc
	for _, r := range []string{"B", "A"} {
		for i, text := range texts {
			docs = append(docs, pgstore.LexicalDoc{MessageID: fmt.Sprintf("%s-%d", r, i), ResourceID: r, CreatedAt: int64(i), Terms: lex.Terms(text), AnswerBits: recall.AnswerBits(text)})
		}
	}
	t.Run("Put", func(t *testing.T) {
		inTx(t, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, docs) })
		checkStats(t, pool, docs, "A")
		checkStats(t, pool, docs, "B")
	})
	t.Run("PutAgainChangesNothing", func(t *testing.T) {
		var before, after string
		pool.QueryRow(ctx, `SELECT string_agg(xmin::text, ',' ORDER BY message_id) FROM lexical_docs`).Scan(&before)
		inTx(t, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, docs) })
		pool.QueryRow(ctx, `SELECT string_agg(xmin::text, ',' ORDER BY message_id) FROM lexical_docs`).Scan(&after)
		if before != after {
			t.Fatal("re-indexing unchanged documents rewrote rows")
		}
		checkStats(t, pool, docs, "A")
	})
	t.Run("RolledBack", func(t *testing.T) {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		extra := []pgstore.LexicalDoc{{MessageID: "A-5", ResourceID: "A", Terms: []string{"zebra"}}}
		if err := pgstore.PutLexical(ctx, tx, extra); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		checkStats(t, pool, docs, "A")
	})
	t.Run("Replace", func(t *testing.T) {
		docs[0].Terms = lex.Terms("a completely different zebra zebra for three days")
		docs[0].AnswerBits = recall.AnswerBits("a completely different zebra zebra for three days")
		inTx(t, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, docs[:1]) })
		checkStats(t, pool, docs, docs[0].ResourceID)
	})
	t.Run("RemoveAndCascade", func(t *testing.T) {
		inTx(t, pool, func(tx pgx.Tx) error { return pgstore.RemoveLexical(ctx, tx, []string{"A-1", "nope"}) })
		if _, err := pool.Exec(ctx, `DELETE FROM messages WHERE id IN ('A-3', 'A-4')`); err != nil {
			t.Fatal(err)
		}
		docs = slices.DeleteFunc(docs, func(d pgstore.LexicalDoc) bool {
			return d.MessageID == "A-1" || d.MessageID == "A-3" || d.MessageID == "A-4"
		})
		checkStats(t, pool, docs, "A")
		checkStats(t, pool, docs, "B")
	})
	t.Run("ErasedResourceLeavesNoTerm", func(t *testing.T) {
		if _, err := pool.Exec(ctx, `DELETE FROM messages WHERE resource_id = 'B'`); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM lexical_stats WHERE resource_id = 'B') + (SELECT count(*) FROM lexical_df WHERE resource_id = 'B')`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("rows of erased resource B in lexical_stats/lexical_df = %d (%v), want 0", n, err)
		}
		checkStats(t, pool, docs, "A")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		for _, d := range []pgstore.LexicalDoc{{ResourceID: "A"}, {MessageID: "A-0"}, {MessageID: "A-0", ResourceID: "A", Terms: []string{"a\x00b"}}, {MessageID: "A-0", ResourceID: "A", Terms: []string{"\xff"}}} {
			if err := pgstore.PutLexical(ctx, pool, []pgstore.LexicalDoc{d}); !strings.Contains(fmt.Sprint(err), "invalid argument") {
				t.Errorf("PutLexical(%+v) = %v, want ErrInvalid", d, err)
			}
		}
	})
}

// statsMismatches counts the resources whose statistics rows differ from
// a recount of lexical_docs.
func statsMismatches(ctx context.Context, q pgstore.Querier) (int, error) {
	ms, err := pgstore.StatsMismatches(ctx, q, 1000)
	return len(ms), err
}

// TestLexicalStatsConcurrent indexes and removes documents of two
// resources from several transactions at once: the statistics equal a
// recount at the end, and no transaction fails (no deadlock).
func TestLexicalStatsConcurrent(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t))
	ctx := t.Context()
	const writers, txs, perTx = 6, 8, 5
	seedMessages(t, pool, []string{"A", "B"}, writers*txs*perTx)
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for i := range txs {
				var docs []pgstore.LexicalDoc
				for j := range perTx {
					r := []string{"A", "B"}[rng.IntN(2)]
					terms := make([]string, 1+rng.IntN(8))
					for k := range terms {
						terms[k] = vocab[rng.IntN(len(vocab))]
					}
					docs = append(docs, pgstore.LexicalDoc{MessageID: fmt.Sprintf("%s-%d", r, (w*txs+i)*perTx+j), ResourceID: r, Terms: terms, AnswerBits: uint8(rng.IntN(8))})
				}
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					if err := pgstore.PutLexical(ctx, tx, docs); err != nil {
						return err
					}
					return pgstore.RemoveLexical(ctx, tx, []string{docs[0].MessageID})
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent indexing: %v", err)
	}
	n, err := statsMismatches(ctx, pool)
	if err != nil || n != 0 {
		t.Fatalf("statistics rows differing from a recount: %d (%v)", n, err)
	}
	var docs int
	pool.QueryRow(ctx, `SELECT count(*) FROM lexical_docs`).Scan(&docs)
	if got, want := docs, writers*txs*(perTx-1); got != want {
		t.Fatalf("lexical docs = %d, want %d", got, want)
	}
}

func TestLexicalIndex(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t))
	ctx := t.Context()
	const n = 3000
	seedMessages(t, pool, []string{"A", "B"}, n/2)
	rng := rand.New(rand.NewPCG(3, 4))
	var docs []pgstore.LexicalDoc
	for _, r := range []string{"A", "B"} {
		for i := range n / 2 {
			terms := make([]string, 12)
			for k := range terms {
				terms[k] = fmt.Sprintf("w%d", int(rng.ExpFloat64()*200))
			}
			docs = append(docs, pgstore.LexicalDoc{MessageID: fmt.Sprintf("%s-%d", r, i), ResourceID: r, Terms: terms})
		}
	}
	docs[7].Terms = append(docs[7].Terms, "o'brien", `back\slash`)
	inTx(t, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, docs) })
	// VACUUM moves GIN's pending list (rows inserted since the index was
	// built) into the index, as autovacuum does; until then the planner
	// prices the pending list and prefers a sequential scan of a small table.
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE lexical_docs"); err != nil {
		t.Fatal(err)
	}
	query := `SELECT message_id FROM lexical_docs WHERE tsv @@ $1::tsquery AND resource_id = $2 ORDER BY message_id`
	t.Run("IndexUsed", func(t *testing.T) {
		plan := explain(t, pool, query, pgstore.TermsQuery([]string{"o'brien", "w1500"}), "A")
		if !strings.Contains(plan, "Bitmap Index Scan on lexical_docs_tsv") {
			t.Fatalf("the tsquery does not use lexical_docs_tsv:\n%s", plan)
		}
	})
	t.Run("QuotedTerms", func(t *testing.T) {
		for _, term := range []string{"o'brien", `back\slash`} {
			rows, err := pool.Query(ctx, query, pgstore.TermsQuery([]string{"", term, strings.Repeat("x", 3000)}), "A")
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, []string{"A-7"}) {
				t.Fatalf("documents holding %q: %v, want [A-7]", term, ids)
			}
		}
	})
	t.Run("LongTermsStoredNotIndexed", func(t *testing.T) {
		long := strings.Repeat("y", 3000)
		inTx(t, pool, func(tx pgx.Tx) error {
			return pgstore.PutLexical(ctx, tx, []pgstore.LexicalDoc{{MessageID: "B-0", ResourceID: "B", Terms: []string{long, "short"}}})
		})
		s, err := pgstore.Stats(ctx, pool, "B", []string{long})
		if err != nil || s.DF[long] != 1 {
			t.Fatalf("df of a 3000-byte term = %d (%v), want 1", s.DF[long], err)
		}
	})
}
