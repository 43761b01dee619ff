package recall_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// countingCtx is a context that counts the calls of its Err.
type countingCtx struct {
	context.Context
	errs atomic.Int64
}

func (c *countingCtx) Err() error {
	c.errs.Add(1)
	return c.Context.Err()
}

// TestSearchCancel: the lexical channel over the shard's postings checks
// its context as it reads them, so a cancelled Search returns
// context.Canceled instead of running to its end (~100 ms at 100k messages
// in one resource, the in-memory part never looked). A search of a word
// every one of n messages holds asks its context at least once per 4096
// postings; a search whose context is cancelled fails with its error in
// lexical and hybrid mode.
func TestSearchCancel(t *testing.T) {
	const n = 12_500
	docs := make([]recall.Doc, n)
	for i := range docs {
		docs[i] = recall.Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i%50), ResourceID: "r", Seq: int64(i/50 + 1), Role: "user",
			Content: fmt.Sprintf("apple orchard note %d", i), CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)}
	}
	f := newFixture(t, docs)
	q := recall.Query{Text: "apple", ResourceID: "r", Options: recall.Options{Mode: recall.ModeLexical, TopK: 5}}
	if _, err := f.ix.Search(context.Background(), q); err != nil { // loads the shard
		t.Fatal(err)
	}
	ctx := &countingCtx{Context: context.Background()}
	res, err := f.ix.Search(ctx, q)
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %d hits, %v", len(res.Hits), err)
	}
	if got, want := ctx.errs.Load(), int64(n/4096); got < want {
		t.Errorf("a lexical search over %d postings asked its context %d times, want at least %d (once per 4096)", n, got, want)
	}
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeHybrid} {
		cctx, cancel := context.WithCancel(context.Background())
		cancel()
		q.Options.Mode = mode
		if res, err := f.ix.Search(cctx, q); !errors.Is(err, context.Canceled) {
			t.Errorf("%s search with its context cancelled: %v, err %v; want context.Canceled", mode, res, err)
		}
	}
}

// TestSearchCancelBleveAndVector: the lexical channel through bleve
// (Tuning.BleveMatches) and the vector channel over the hash embedder's
// vectors (the shard's int8 index) stop when their context ends too: a
// vector search over n vectors asks its context at least once per 4096
// rows, and a search whose context is cancelled fails with its error in
// every mode (both paths ran to their end and returned hits).
func TestSearchCancelBleveAndVector(t *testing.T) {
	const n = 12_500
	docs := make([]recall.Doc, n)
	for i := range docs {
		docs[i] = recall.Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i%50), ResourceID: "r", Seq: int64(i/50 + 1), Role: "user",
			Content: fmt.Sprintf("apple orchard note %d", i), CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)}
	}
	f := newFixtureWith(t, docs, recall.Tuning{BleveMatches: true})
	q := recall.Query{Text: "apple", ResourceID: "r", Options: recall.Options{Mode: recall.ModeVector, TopK: 5}}
	if _, err := f.ix.Search(context.Background(), q); err != nil { // loads the shard
		t.Fatal(err)
	}
	ctx := &countingCtx{Context: context.Background()}
	res, err := f.ix.Search(ctx, q)
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search: %d hits, %v", len(res.Hits), err)
	}
	if got, want := ctx.errs.Load(), int64(n/4096); got < want {
		t.Errorf("a vector search over %d rows asked its context %d times, want at least %d (once per 4096)", n, got, want)
	}
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
		cctx, cancel := context.WithCancel(context.Background())
		cancel()
		q.Options.Mode = mode
		if res, err := f.ix.Search(cctx, q); !errors.Is(err, context.Canceled) {
			t.Errorf("%s search with its context cancelled: %v, err %v; want context.Canceled", mode, res, err)
		}
	}
	if d := f.ix.Lexical().Damaged(); d != nil {
		t.Fatalf("a cancelled bleve search marked the index damaged: %v", d)
	}
}
