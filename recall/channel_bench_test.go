package recall_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/philippgille/chromem-go"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// channelSizes are the index sizes of BenchmarkChannel: that many
// synthetic messages (internal/enginetest/synth) over resources of 1,000 messages
// each, the shape of issue 8's 1M-message target.
var channelSizes = flag.String("recall.sizes", "10k", "comma-separated index sizes of BenchmarkChannel (k = 1000)")

// channelResources is the number of resources of BenchmarkChannel's
// corpus: 0 spreads it over resources of 1,000 messages, 1 puts it all in
// one resource (issue 14's long-lived single user).
var channelResources = flag.Int("recall.resources", 0, "resources of BenchmarkChannel's corpus (0: one per 1,000 messages)")

// memSource is a Source over docs held in memory, with hash-384 vectors.
type memSource map[string][]recall.Doc

func (m memSource) ResourceDocs(_ context.Context, r string, fn func(*recall.Doc) error) error {
	for i := range m[r] {
		if err := fn(&m[r][i]); err != nil {
			return err
		}
	}
	return nil
}

func (m memSource) ResourceVectors(_ context.Context, r, _ string, fn func(string, []float32) error) error {
	for i := range m[r] {
		if err := fn(m[r][i].ID, recall.HashVector(m[r][i].Text())); err != nil {
			return err
		}
	}
	return nil
}

// synthIndex indexes a synthetic corpus in a bleve directory under tb's
// temporary directory and returns the Index, the corpus and its docs.
func synthIndex(tb testing.TB, cfg synth.Config, tuning recall.Tuning) (*recall.Index, *synth.Corpus) {
	tb.Helper()
	c, err := synth.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	lex, err := recall.OpenLexical(tb.TempDir() + "/lexical")
	if err != nil {
		tb.Fatal(err)
	}
	src := memSource{}
	var batch []recall.Doc
	for th := range c.All() {
		for i, m := range th.Messages {
			d := recall.Doc{ID: m.ID, ThreadID: th.ID, ResourceID: th.ResourceID, Seq: int64(i + 1), Role: m.Role, Name: m.Name, Content: m.Content, CreatedAt: m.CreatedAt}
			src[th.ResourceID] = append(src[th.ResourceID], d)
			if batch = append(batch, d); len(batch) == 5000 {
				if err := lex.Index(batch); err != nil {
					tb.Fatal(err)
				}
				batch = batch[:0]
			}
		}
	}
	if err := lex.Index(batch); err != nil {
		tb.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: src, Tuning: tuning})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix, c
}

func parseSizes(b *testing.B, list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mult := 1
		if strings.HasSuffix(f, "k") {
			f, mult = strings.TrimSuffix(f, "k"), 1000
		}
		n, err := strconv.Atoi(f)
		if err != nil || n*mult < 1000 {
			b.Fatalf("bad size %q (at least 1000)", f)
		}
		out = append(out, n*mult)
	}
	return out
}

// BenchmarkChannel measures one search of each channel over one resource
// of 1,000 messages (or of the -recall.resources split) within an index of
// the given size, with a recent
// window of 10 excluded as in LoadContext; "hybrid" adds fusion and range
// expansion.
func BenchmarkChannel(b *testing.B) {
	for _, n := range parseSizes(b, *channelSizes) {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			ix, c := synthIndex(b, synth.Config{Messages: n, Resources: *channelResources}, recall.Tuning{})
			// Queries over the first 20 resources, loaded before timing.
			var queries []synth.Query
			for i := range 200 {
				q := c.Query(i, 20)
				queries = append(queries, q)
				if _, err := ix.Search(context.Background(), recall.Query{Text: q.Text, ResourceID: q.ResourceID}); err != nil {
					b.Fatal(err)
				}
			}
			for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
				b.Run(string(mode), func(b *testing.B) {
					benchSearches(b, ix, queries, mode, nil)
				})
			}
			// A filter that allows about a third of the messages: the
			// top k among all of them (issue 14, "With a filter").
			b.Run("lexical-filtered", func(b *testing.B) {
				benchSearches(b, ix, queries, recall.ModeLexical, json.RawMessage(`{"role":"user"}`))
			})
		})
	}
}

// benchSearches runs b.N searches of mode (and filter) over queries, with
// a recent window of 10 excluded and a range of one turn a side, as
// LoadContext asks.
func benchSearches(b *testing.B, ix *recall.Index, queries []synth.Query, mode recall.Mode, filter json.RawMessage) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		exclude := map[string]bool{}
		for j := range 10 {
			exclude[fmt.Sprintf("%s.%06d", q.ThreadID, j+1)] = true
		}
		if _, err := ix.Search(context.Background(), recall.Query{Text: q.Text, ResourceID: q.ResourceID, Exclude: exclude,
			Options: recall.Options{TopK: 5, Mode: mode, Filter: filter, MessageRange: recall.Range{Before: 1, After: 1}}}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkFusion measures the fusion of two channel lists of n candidates
// each (half of them shared), weighted and RRF.
func BenchmarkFusion(b *testing.B) {
	for _, n := range []int{100, 1000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		cands := make([]recall.Candidate, 0, 3*n/2)
		for i := range 3 * n / 2 {
			c := recall.Candidate{ID: fmt.Sprintf("m%06d", i)}
			if i < n {
				l := rng.Float64() * 12
				c.Lexical, c.LexRank = &l, i+1
			}
			if i >= n/2 {
				v := rng.Float64()*2 - 1
				c.Vector, c.VecRank = &v, i-n/2+1
			}
			cands = append(cands, c)
		}
		b.Run(fmt.Sprintf("weighted/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				recall.FuseWeighted(cands, 0.3)
			}
		})
		b.Run(fmt.Sprintf("rrf/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				recall.FuseRRF(cands, recall.RRFK)
			}
		})
	}
}

// BenchmarkExpandRange measures message-range expansion of 5 and 50 hits
// with ranges 1 and 5 over threads of 100 messages (the lookup returns
// prebuilt hits, so the figure is ExpandRange's own cost).
func BenchmarkExpandRange(b *testing.B) {
	threads := map[string][]recall.Hit{}
	for t := range 10 {
		th := fmt.Sprintf("t%02d", t)
		for s := int64(1); s <= 100; s++ {
			threads[th] = append(threads[th], recall.Hit{MessageID: fmt.Sprintf("%s.%03d", th, s), ThreadID: th, Seq: s})
		}
	}
	lookup := func(th string, from, to int64) ([]recall.Hit, error) {
		return threads[th][from-1 : min(to, 100)], nil
	}
	for _, k := range []int{5, 50} {
		for _, r := range []int{1, 5} {
			rng := rand.New(rand.NewPCG(2, uint64(k)))
			hits := make([]recall.Hit, k)
			for i := range hits {
				h := threads[fmt.Sprintf("t%02d", rng.IntN(10))][rng.IntN(100)]
				h.Rank, h.Reason = i+1, recall.ReasonHit
				hits[i] = h
			}
			b.Run(fmt.Sprintf("hits%d/range%d", k, r), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := recall.ExpandRange(hits, recall.Range{Before: r, After: r}, lookup); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkVectorScan compares the vector channel's brute-force search in
// chromem-go (QueryEmbedding, top 110 of n hash-384 vectors) with a plain
// reference loop over the same vectors in one contiguous []float32 (dot
// products and a bounded top-110 selection per core, see flatTop). The reference
// is not mnemo code: it is the figure a replacement of chromem-go's scan
// would reach, for issue 8's "report the figure a replacement would
// reach". index is what replaced the scan (issue 14): the int8 codes
// scanned by the AVX2 kernel, then the exact re-scoring of a pool of 440;
// index-rows scans every code row, index-cols (the default for a sparse
// query: veccols.go) adds up the query's non-zero columns.
func BenchmarkVectorScan(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		c, err := synth.New(synth.Config{Messages: n, Resources: 1})
		if err != nil {
			b.Fatal(err)
		}
		var docs []chromem.Document
		var vecs [][]float32
		flat := make([]float32, 0, n*recall.HashDims)
		for th := range c.All() {
			for _, m := range th.Messages {
				v := recall.HashVector(m.Content)
				docs = append(docs, chromem.Document{ID: m.ID, Embedding: v, Metadata: map[string]string{"thread": th.ID}})
				flat = append(flat, v...)
				vecs = append(vecs, v)
			}
		}
		col, err := chromem.NewDB().CreateCollection("r", nil, func(context.Context, string) ([]float32, error) { return nil, errors.New("no") })
		if err != nil {
			b.Fatal(err)
		}
		if err := col.AddDocuments(context.Background(), docs, 2); err != nil {
			b.Fatal(err)
		}
		q := recall.HashVector(c.Query(0, 1).Text)
		b.Run(fmt.Sprintf("chromem/%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := col.QueryEmbedding(context.Background(), q, 110, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("flat/%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				flatTop(flat, q, 110)
			}
		})
		search := recall.VectorIndexForTest(vecs)
		for _, cols := range []bool{false, true} {
			name := map[bool]string{false: "index-rows", true: "index-cols"}[cols]
			b.Run(fmt.Sprintf("%s/%dk", name, n/1000), func(b *testing.B) {
				recall.ColumnPassForTest(cols)
				defer recall.ColumnPassForTest(true)
				search(q, 110) // builds the column blocks
				search(q, 110)
				b.ReportAllocs()
				for b.Loop() {
					search(q, 110)
				}
			})
		}
	}
}

// flatTop returns the indexes of the k vectors of flat (rows of len(q))
// most similar to q, best first: the rows are split between
// runtime.NumCPU() goroutines, each with a four-way unrolled dot product
// and its own bounded top k, merged at the end.
func flatTop(flat, q []float32, k int) []int {
	type hit struct {
		i   int
		sim float32
	}
	d := len(q)
	rows := len(flat) / d
	workers := min(runtime.NumCPU(), max(rows/1000, 1))
	parts := make([][]hit, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := rows*w/workers, rows*(w+1)/workers
		wg.Go(func() {
			top := make([]hit, 0, k+1)
			for i := lo; i < hi; i++ {
				row := flat[i*d : i*d+d]
				var s0, s1, s2, s3 float32
				j := 0
				for ; j+4 <= d; j += 4 {
					s0 += q[j] * row[j]
					s1 += q[j+1] * row[j+1]
					s2 += q[j+2] * row[j+2]
					s3 += q[j+3] * row[j+3]
				}
				for ; j < d; j++ {
					s0 += q[j] * row[j]
				}
				s := s0 + s1 + s2 + s3
				if len(top) == k && s <= top[k-1].sim {
					continue
				}
				at := sort.Search(len(top), func(j int) bool { return top[j].sim < s })
				top = slices.Insert(top, at, hit{i, s})
				if len(top) > k {
					top = top[:k]
				}
			}
			parts[w] = top
		})
	}
	wg.Wait()
	var all []hit
	for _, p := range parts {
		all = append(all, p...)
	}
	slices.SortFunc(all, func(a, b hit) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		}
		return a.i - b.i
	})
	out := make([]int, 0, k)
	for _, h := range all[:min(k, len(all))] {
		out = append(out, h.i)
	}
	return out
}

// TestFlatTop checks the reference scan of BenchmarkVectorScan against a
// plain sort, so that its figure is for a correct top k.
func TestFlatTop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const n, d, k = 5000, 16, 25
	flat := make([]float32, n*d)
	for i := range flat {
		flat[i] = rng.Float32()*2 - 1
	}
	q := flat[:d]
	sims := make([]float32, n)
	idx := make([]int, n)
	for i := range n {
		idx[i] = i
		for j := range d {
			sims[i] += q[j] * flat[i*d+j]
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case sims[a] > sims[b]:
			return -1
		case sims[a] < sims[b]:
			return 1
		}
		return a - b
	})
	got := flatTop(flat, q, k)
	for i, g := range got {
		if d := sims[g] - sims[idx[i]]; d > 1e-4 || d < -1e-4 {
			t.Fatalf("rank %d: row %d (%v), want row %d (%v)", i, g, sims[g], idx[i], sims[idx[i]])
		}
	}
}

// BenchmarkFirstUse measures the first search of a resource of n synthetic
// messages (hash-384 vectors computed by the source): its messages
// analysed, its vectors loaded into chromem-go and the int8 index.
func BenchmarkFirstUse(b *testing.B) {
	for _, n := range parseSizes(b, *channelSizes) {
		c, err := synth.New(synth.Config{Messages: n, Resources: 1})
		if err != nil {
			b.Fatal(err)
		}
		src := storedSource{docs: memSource{}}
		for th := range c.All() {
			for i, m := range th.Messages {
				d := recall.Doc{ID: m.ID, ThreadID: th.ID, ResourceID: th.ResourceID, Seq: int64(i + 1), Role: m.Role, Content: m.Content, CreatedAt: m.CreatedAt}
				src.docs[th.ResourceID] = append(src.docs[th.ResourceID], d)
				src.vecs = append(src.vecs, recall.HashVector(d.Text()))
			}
		}
		lex, err := recall.OpenLexical(b.TempDir() + "/lexical")
		if err != nil {
			b.Fatal(err)
		}
		q := c.Query(0, 1)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for b.Loop() {
				ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: src})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ix.Search(context.Background(), recall.Query{Text: q.Text, ResourceID: q.ResourceID}); err != nil {
					b.Fatal(err)
				}
			}
		})
		lex.Close()
	}
}

// storedSource is a memSource whose vectors are computed once (the order of
// docs), as SQLite stores them.
type storedSource struct {
	docs memSource
	vecs [][]float32
}

func (s storedSource) ResourceDocs(ctx context.Context, r string, fn func(*recall.Doc) error) error {
	return s.docs.ResourceDocs(ctx, r, fn)
}

func (s storedSource) ResourceVectors(_ context.Context, r, _ string, fn func(string, []float32) error) error {
	for i, d := range s.docs[r] {
		if err := fn(d.ID, s.vecs[i]); err != nil {
			return err
		}
	}
	return nil
}
