package recall

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// lexQuery is one lexical search: OR of the analysed terms of Text, within
// Resource (and Thread when set), and within IDs when non-nil.
type lexQuery struct {
	Text     string
	Resource string
	Thread   string
	IDs      []string
	Size     int
}

type lexHit struct {
	ID    string
	Score float64
}

// search runs q and returns hits in bleve's BM25 order and the total number
// of matching messages. bleve's collector checks ctx every 1,024 matches
// (collector.CheckDoneEvery): when ctx ends the search returns its error
// (wrapped; errors.Is matches it), and the index is not marked damaged.
func (l *Lexical) search(ctx context.Context, q lexQuery) ([]lexHit, int, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, 0, ErrClosed
	}
	var (
		hits  []lexHit
		total int
	)
	err := l.guardRead(ctx, func() (err error) {
		hits, total, err = l.searchSnapshot(ctx, q)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("recall: lexical search: %w", err)
	}
	return hits, total, nil
}

// searchSnapshot runs q on one snapshot of the index: what bleve's
// Index.Search does for a request of q.Size hits by score, without stored
// fields, with the scope left out when it cannot remove anything.
//
// When every message of the snapshot belongs to q.Resource (a single-user
// deployment, or one resource per index), the resource term's posting list
// holds every document and the conjunction only costs: at 100k messages in
// one resource it took half of the lexical search (advancing the resource
// term's postings after every match of the words; BENCHMARKS.md). The
// check and the search read the same snapshot, so a message of another
// resource indexed meanwhile cannot slip in. The scope term's boost is 0
// and a conjunction sums its parts' scores, so the hits, their scores, their
// order and the total are the same (TestLexicalSoleResource).
func (l *Lexical) searchSnapshot(ctx context.Context, q lexQuery) (_ []lexHit, _ int, err error) {
	adv, err := l.idx.Advanced()
	if err != nil {
		return nil, 0, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	ctx = withBM25(ctx)
	sole, err := soleResource(ctx, r, q.Resource)
	if err != nil {
		return nil, 0, err
	}
	return l.searchReader(ctx, r, q, !sole)
}

// searchReader runs q on the snapshot r, with or without the resource term
// (scopeQuery); ctx carries the scoring model.
func (l *Lexical) searchReader(ctx context.Context, r index.IndexReader, q lexQuery, withResource bool) (_ []lexHit, _ int, err error) {
	s, err := scopeQuery(q, withResource).Searcher(ctx, r, l.idx.Mapping(), search.SearcherOptions{})
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	coll := collector.NewTopNCollector(q.Size, 0, search.SortOrder{&search.SortScore{Desc: true}})
	if err := coll.Collect(ctx, s, r); err != nil {
		return nil, 0, err
	}
	res := coll.Results()
	out := make([]lexHit, len(res))
	for i, h := range res {
		out[i] = lexHit{ID: h.ID, Score: h.Score}
	}
	return out, int(coll.Total()), nil
}

// withBM25 returns ctx with the scoring model as bleve.Index.Search sets it
// (OpenLexical refuses an index that is not BM25).
func withBM25(ctx context.Context) context.Context {
	return context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return index.BM25Scoring }))
}

// soleResource reports whether every document of the snapshot r belongs to
// resource: its term's live postings are as many as the live documents
// (each document has exactly one resource term).
func soleResource(ctx context.Context, r index.IndexReader, resource string) (bool, error) {
	n, err := r.DocCount()
	if err != nil {
		return false, err
	}
	tfr, err := r.TermFieldReader(ctx, []byte(resource), fieldResource, false, false, false)
	if err != nil {
		return false, err
	}
	count := tfr.Count()
	if err := tfr.Close(); err != nil {
		return false, err
	}
	return count == n, nil
}

// scopeQuery is q as one bleve query: the match of q.Text, in a
// conjunction with the scope terms (the resource's unless withResource is
// false; the thread's) and ids, boosted to 0 so that they add nothing to
// the score. A conjunction leapfrogs along the rarest posting list (the
// resource's messages); a boolean query's filter instead visits every
// message of the whole index that matches a query word and checks the
// filter for each, so its cost grew with the index, not the resource
// (BenchmarkChannel/100k/lexical, 100 resources: 23 -> 6 ms/op).
// TestLexicalScopeScores checks the scores are those of the filter form.
func scopeQuery(q lexQuery, withResource bool) query.Query {
	mq := bleve.NewMatchQuery(q.Text)
	mq.SetField(fieldText)
	var parts []query.Query
	if withResource {
		parts = append(parts, term(fieldResource, q.Resource))
	}
	if q.Thread != "" {
		parts = append(parts, term(fieldThread, q.Thread))
	}
	if q.IDs != nil {
		ids := bleve.NewDocIDQuery(q.IDs)
		ids.SetBoost(0)
		parts = append(parts, ids)
	}
	if len(parts) == 0 {
		// Alone, the match scores as within the conjunction: it is a
		// disjunction even of one word, whose query norm over its words'
		// weights is the conjunction's (the scope terms weigh 0).
		return mq
	}
	return bleve.NewConjunctionQuery(append(parts, mq)...)
}

// term is an exact keyword query on field that adds nothing to the score
// (boost 0).
func term(field, v string) query.Query {
	t := bleve.NewTermQuery(v)
	t.SetField(field)
	t.SetBoost(0)
	return t
}
