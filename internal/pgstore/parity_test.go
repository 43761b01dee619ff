package pgstore_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/bm25"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// memSource serves a recall.Index the documents of each resource.
type memSource map[string][]recall.Doc

func (m memSource) ResourceDocs(_ context.Context, r string, fn func(*recall.Doc) error) error {
	for i := range m[r] {
		if err := fn(&m[r][i]); err != nil {
			return err
		}
	}
	return nil
}

func (m memSource) ResourceVectors(context.Context, string, string, func(string, []float32) error) error {
	return nil
}

// pgScores scores resource's lexical candidates for the query's analysed
// terms from pgstore's statistics with internal/bm25.
func pgScores(t *testing.T, q pgstore.Querier, resource string, terms []string) map[string]float64 {
	t.Helper()
	st, err := pgstore.Stats(t.Context(), q, resource, terms)
	if err != nil {
		t.Fatal(err)
	}
	cands, err := pgstore.LexicalCandidates(t.Context(), q, resource, terms)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	avg := float64(st.TotalLen) / float64(st.Docs)
	for _, c := range cands {
		var sum float64
		norm := bm25.Norm(float64(c.Len), avg)
		for i, term := range terms {
			if c.TF[i] > 0 {
				sum += bm25.Weight(bm25.IDF(float64(st.Docs), float64(st.DF[term])), float64(c.TF[i]), norm)
			}
		}
		out[c.MessageID] = sum
	}
	return out
}

// TestLexicalParityWithSQLiteBackend indexes one corpus in recall's index
// (the SQLite backend's lexical channel: bleve candidates re-scored with
// the textbook BM25 over its own statistics) and in Postgres (terms from
// the same analyser), then compares every query's lexical scores: same
// documents, same scores.
func TestLexicalParityWithSQLiteBackend(t *testing.T) {
	pool := mustOpen(t, pgtest.DSN(t))
	ctx := t.Context()
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	vocab := strings.Fields(`running runs ran runner dog dogs cat cats support group supported meeting
		painting painted paint beach beaches museum trip trips travelled travel Caroline Melanie
		adoption adopt adopted counselor career school schools camping camp lake mountains
		résumé Straße the and of a to in is was it's I'm can't`)
	rng := rand.New(rand.NewPCG(11, 12))
	resources := []string{"A", "B"}
	src := memSource{}
	var docs []recall.Doc
	for _, r := range resources {
		for i := range 150 {
			words := make([]string, 1+rng.IntN(25))
			for k := range words {
				words[k] = vocab[rng.IntN(len(vocab))]
			}
			d := recall.Doc{ID: fmt.Sprintf("%s-%d", r, i), ThreadID: "th-" + r, ResourceID: r, Seq: int64(i + 1), Role: "user",
				Content: strings.Join(words, " "), CreatedAt: time.UnixMilli(int64(i) * 1000).UTC()}
			src[r] = append(src[r], d)
			docs = append(docs, d)
		}
	}
	if err := lex.Index(docs); err != nil {
		t.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: src, Tuning: recall.Tuning{ContextWeight: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	seedMessages(t, pool, resources, 150)
	var lds []pgstore.LexicalDoc
	for _, d := range docs {
		lds = append(lds, pgstore.LexicalDoc{MessageID: d.ID, ResourceID: d.ResourceID, CreatedAt: d.CreatedAt.UnixMilli(), Terms: lex.Terms(d.Text())})
	}
	inTx(t, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, lds) })

	compared := 0
	for qi := range 40 {
		text := vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))]
		terms := slices.Compact(slices.Sorted(slices.Values(lex.Terms(text))))
		r := resources[qi%2]
		res, err := ix.Search(ctx, recall.Query{Text: text, ResourceID: r, Options: recall.Options{Mode: recall.ModeLexical, TopK: recall.MaxTopK}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for _, h := range res.Hits {
			if h.Reason == recall.ReasonHit && h.Lexical != nil && *h.Lexical > 0 {
				want[h.MessageID] = *h.Lexical
			}
		}
		got := pgScores(t, pool, r, terms)
		if len(got) != len(want) {
			t.Fatalf("query %q in %s: Postgres has %d candidates, recall %d", text, r, len(got), len(want))
		}
		for id, w := range want {
			if g, ok := got[id]; !ok || math.Abs(g-w) > 1e-9*max(1, w) {
				t.Fatalf("query %q in %s: %s scores %v in Postgres, %v in recall", text, r, id, g, w)
			}
			compared++
		}
	}
	if compared < 500 {
		t.Fatalf("only %d scores compared", compared)
	}
	t.Logf("%d lexical scores equal", compared)
}
