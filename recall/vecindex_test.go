package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mnemo-go/mnemo/internal/enginetest/synth"
	"github.com/mnemo-go/mnemo/recall"
)

// vectorPair is one synthetic resource served twice from memory: through
// the vector index (approx) and through chromem-go's exact scan (exact).
type vectorPair struct {
	approx, exact *recall.Index
	docs          []recall.Doc
	threads       []string
}

func newVectorPair(t testing.TB, messages int, seed uint64) *vectorPair {
	t.Helper()
	c, err := synth.New(synth.Config{Messages: messages, Resources: 1, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	src := memSource{}
	p := &vectorPair{}
	for th := range c.All() {
		p.threads = append(p.threads, th.ID)
		for i, m := range th.Messages {
			d := recall.Doc{ID: m.ID, ThreadID: th.ID, ResourceID: th.ResourceID, Seq: int64(i + 1), Role: m.Role, Name: m.Name, Content: m.Content, CreatedAt: m.CreatedAt,
				Metadata: map[string]any{"bucket": float64(len(p.docs) % 7)}}
			src[th.ResourceID] = append(src[th.ResourceID], d)
			p.docs = append(p.docs, d)
		}
	}
	open := func(exact bool) *recall.Index {
		lex, err := recall.OpenLexical(t.TempDir() + "/lexical")
		if err != nil {
			t.Fatal(err)
		}
		ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: src, Tuning: recall.Tuning{ExactVectors: exact}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	p.approx, p.exact = open(false), open(true)
	return p
}

// vectorCase is one query of TestVectorIndexRecall.
type vectorCase struct {
	name string
	q    recall.Query
}

func (p *vectorPair) cases(r *rand.Rand, n int) []vectorCase {
	res := p.docs[0].ResourceID
	var out []vectorCase
	for i := range n {
		d := p.docs[r.IntN(len(p.docs))]
		words := d.Content
		if len(words) > 60 {
			words = words[:60]
		}
		o := recall.Options{Mode: recall.ModeVector, TopK: 10}
		c := vectorCase{name: fmt.Sprintf("%d/plain", i)}
		switch i % 5 {
		case 1:
			f, _ := json.Marshal(map[string]any{"role": "user"})
			o.Filter, c.name = f, fmt.Sprintf("%d/role", i)
		case 2:
			f, _ := json.Marshal(map[string]any{"metadata.bucket": map[string]any{"$in": []float64{float64(r.IntN(7))}}})
			o.Filter, c.name = f, fmt.Sprintf("%d/bucket", i)
		case 3:
			o.Scope, c.name = recall.ScopeThread, fmt.Sprintf("%d/thread", i)
		case 4:
			ex := map[string]bool{}
			for range 10 {
				ex[p.docs[r.IntN(len(p.docs))].ID] = true
			}
			c.q.Exclude, c.name = ex, fmt.Sprintf("%d/exclude", i)
		}
		c.q.Text, c.q.ResourceID, c.q.ThreadID, c.q.Options = words, res, d.ThreadID, o
		out = append(out, c)
	}
	return out
}

// TestVectorIndexRecall is the property test of the vector index: on random
// synthetic corpora larger than the exact-scan size, with filters, thread
// scope, exclusions and deletions, the vector channel's top 10 keeps
// recall@10 ≥ 0.99 against chromem-go's exact scan, and never returns fewer
// hits than the exact channel.
func TestVectorIndexRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds corpora of 12,000 messages")
	}
	ctx := context.Background()
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			p := newVectorPair(t, 12_000, seed)
			r := rand.New(rand.NewPCG(seed, 14))
			var found, want int
			erased := map[string]bool{}
			check := func(phase string, cases []vectorCase) {
				for _, c := range cases {
					a, err := p.approx.Search(ctx, c.q)
					if err != nil {
						t.Fatal(err)
					}
					e, err := p.exact.Search(ctx, c.q)
					if err != nil {
						t.Fatal(err)
					}
					if len(a.Hits) != len(e.Hits) {
						t.Errorf("%s %s: %d hits, exact %d", phase, c.name, len(a.Hits), len(e.Hits))
					}
					in := map[string]bool{}
					for _, h := range a.Hits {
						in[h.MessageID] = true
						if erased[h.MessageID] {
							t.Errorf("%s %s: deleted %s returned", phase, c.name, h.MessageID)
						}
					}
					miss := 0
					for _, h := range e.Hits {
						want++
						if in[h.MessageID] {
							found++
						} else {
							miss++
						}
					}
					if miss > 0 && testing.Verbose() {
						t.Logf("%s %s: %d of %d missed", phase, c.name, miss, len(e.Hits))
						for i := range e.Hits {
							if i < len(a.Hits) {
								t.Logf("  %s %.4f  %s %.4f", e.Hits[i].MessageID, e.Hits[i].Score, a.Hits[i].MessageID, a.Hits[i].Score)
							}
						}
					}
				}
			}
			check("before deletions", p.cases(r, 60))
			var gone []string
			for range 2000 {
				id := p.docs[r.IntN(len(p.docs))].ID
				gone = append(gone, id)
				erased[id] = true
			}
			for _, ix := range []*recall.Index{p.approx, p.exact} {
				if err := ix.Remove(ctx, gone); err != nil {
					t.Fatal(err)
				}
			}
			check("after deletions", p.cases(r, 60))
			rec := float64(found) / float64(want)
			t.Logf("recall@10 %.4f (%d of %d)", rec, found, want)
			if rec < 0.99 {
				t.Errorf("recall@10 %.4f < 0.99", rec)
			}
		})
	}
}

// TestDots8 checks the int8 dot-product kernel (AVX2 where the CPU has it)
// against the pure-Go loop on random codes, extremes included.
func TestDots8(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, stride := range []int{32, 384, 512} {
		rows := 37
		q := make([]int8, stride)
		codes := make([]int8, rows*stride)
		for i := range q {
			q[i] = int8(r.IntN(255) - 127)
		}
		for i := range codes {
			codes[i] = int8(r.IntN(255) - 127)
		}
		codes[0], q[0] = 127, -127
		got, want := make([]int32, rows), make([]int32, rows)
		recall.Dots8(q, codes, got)
		recall.Dots8Go(q, codes, want)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("stride %d row %d: %d, want %d", stride, i, got[i], want[i])
			}
		}
	}
}

// TestNeighbourBoundSameList: the vector channel skips scoring the
// neighbours whose bound cannot reach its first q.pool candidates; on
// synthetic corpora larger than the exact-scan size, with filters, thread
// scope, exclusions and deletions, every search (vector and hybrid, 100
// hits: the whole pool) returns the same hits with the same scores as with
// every neighbour scored.
func TestNeighbourBoundSameList(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a corpus of 6,000 messages")
	}
	ctx := context.Background()
	p := newVectorPair(t, 6_000, 3)
	r := rand.New(rand.NewPCG(3, 14))
	search := func(q recall.Query, on bool) []recall.Hit {
		recall.NeighbourBoundForTest(on)
		defer recall.NeighbourBoundForTest(true)
		res, err := p.approx.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hits
	}
	for _, phase := range []string{"before deletions", "after deletions"} {
		if phase == "after deletions" {
			var gone []string
			for range 600 {
				gone = append(gone, p.docs[r.IntN(len(p.docs))].ID)
			}
			if err := p.approx.Remove(ctx, gone); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range p.cases(r, 40) {
			for _, mode := range []recall.Mode{recall.ModeVector, recall.ModeHybrid} {
				q := c.q
				q.Options.Mode, q.Options.TopK = mode, 100
				with, without := search(q, true), search(q, false)
				if len(with) != len(without) {
					t.Fatalf("%s %s %s: %d hits with the bound, %d without", phase, c.name, mode, len(with), len(without))
				}
				for i := range with {
					if with[i].MessageID != without[i].MessageID || with[i].Score != without[i].Score {
						t.Fatalf("%s %s %s: hit %d %s %v with the bound, %s %v without", phase, c.name, mode, i,
							with[i].MessageID, with[i].Score, without[i].MessageID, without[i].Score)
					}
				}
			}
		}
	}
}
