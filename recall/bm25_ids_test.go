package recall

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/bm25"
)

// TestBM25TermIDs checks the id-based statistics against a plain string
// implementation of the textbook BM25, through adds and removes.
func TestBM25TermIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vocab := strings.Fields("apple banana cherry delta echo fox golf hotel india juliet kilo lima mango nectar oscar")
	doc := func() []string {
		out := make([]string, 1+rng.IntN(20))
		for i := range out {
			out[i] = vocab[rng.IntN(len(vocab))]
		}
		return out
	}
	var st bm25Stats
	var docs [][]string
	var ids [][]uint32
	for range 300 {
		d := doc()
		docs, ids = append(docs, d), append(ids, st.termIDs(d))
		st.add(ids[len(ids)-1])
	}
	for i := 0; i < 100; i++ { // remove a third
		st.remove(ids[i])
	}
	docs, ids = docs[100:], ids[100:]
	ref := func(q []string, d []string) float64 {
		n := float64(len(docs))
		var total int
		for _, x := range docs {
			total += len(x)
		}
		avg := float64(total) / n
		var sum float64
		for _, qt := range q {
			df := 0
			for _, x := range docs {
				for _, w := range x {
					if w == qt {
						df++
						break
					}
				}
			}
			tf := 0
			for _, w := range d {
				if w == qt {
					tf++
				}
			}
			idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
			if tf > 0 {
				sum += idf * float64(tf) * (bm25.K1 + 1) / (float64(tf) + bm25.K1*(1-bm25.B+bm25.B*float64(len(d))/avg))
			}
		}
		return sum
	}
	for range 200 {
		q := distinct(append([]string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]}, "zulu")) // "zulu" is never stored
		qids, idfs := make([]uint32, len(q)), make([]float64, len(q))
		for i, t := range q {
			qids[i], idfs[i] = st.lookup(t), st.idf(t)
		}
		k := rng.IntN(len(docs))
		if got, want := st.score(qids, idfs, ids[k]), ref(q, docs[k]); math.Abs(got-want) > 1e-9 {
			t.Fatalf("query %v doc %v: %v, want %v", q, docs[k], got, want)
		}
	}
}

// TestContainsLower compares containsFolded with Fold and
// strings.Contains on ASCII and non-ASCII text.
func TestContainsLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	alphabet := []string{"a", "B", "c", "-", "D", "1", " ", "É", "é", "K", "k"} // K is the Kelvin sign
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 5000 {
		s, sub := gen(rng.IntN(30)), Fold(gen(1+rng.IntN(4)))
		if got, want := containsFolded(s, sub), strings.Contains(Fold(s), sub); got != want {
			t.Fatalf("containsFolded(%q, %q) = %v, want %v", s, sub, got, want)
		}
	}
}
