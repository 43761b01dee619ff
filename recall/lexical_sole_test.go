package recall

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	index "github.com/blevesearch/bleve_index_api"
)

// TestLexicalSoleResource checks that the lexical search of an index
// holding a single resource, which leaves the resource term out of the
// query (searchSnapshot), returns exactly what the scoped query returns on
// the same snapshot: the same ids in the same order, bit-equal
// scores and the same total, for one-word and several-word queries, with
// a thread, with ids, after deletions; and that once another resource is
// indexed the scope applies again and nothing of it is returned.
func TestLexicalSoleResource(t *testing.T) {
	l, err := OpenLexical(t.TempDir() + "/lexical")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	words := strings.Fields("apple banana cherry delta echo fox golf hotel india juliet kilo lima mango")
	rng := rand.New(rand.NewPCG(5, 6))
	doc := func(i int, resource string) Doc {
		ws := make([]string, 2+rng.IntN(14))
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		return Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i%7), ResourceID: resource, Content: strings.Join(ws, " ")}
	}
	var docs []Doc
	for i := range 3000 {
		docs = append(docs, doc(i, "r0"))
	}
	for start := 0; start < len(docs); start += 600 { // several segments
		if err := l.Index(docs[start:min(start+600, len(docs))]); err != nil {
			t.Fatal(err)
		}
	}
	var gone []string
	for i := 0; i < len(docs); i += 11 {
		gone = append(gone, docs[i].ID)
	}
	if err := l.Delete(gone); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, resource string, wantSole bool) {
		snap := l.snapshotForTest(t)
		ctx := withBM25(context.Background())
		sole, err := soleResource(ctx, snap, resource)
		if err != nil || sole != wantSole {
			t.Fatalf("soleResource(%s) = %v, %v; want %v", resource, sole, err, wantSole)
		}
		for i := range 80 {
			text := words[rng.IntN(len(words))]
			if i%2 == 1 {
				text += " " + words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			}
			q := lexQuery{Text: text, Resource: resource, Size: []int{1, 10, 50, 3000}[i%4]}
			if i%5 == 3 {
				q.Thread = fmt.Sprintf("t%d", i%7)
			}
			if i%5 == 4 {
				for j := range 60 {
					q.IDs = append(q.IDs, fmt.Sprintf("m%05d", (i*97+j*5)%3000))
				}
			}
			// The same snapshot both ways: scorch merges segments in the
			// background, which reorders equal scores between snapshots.
			got, total, err := l.searchReader(ctx, snap, q, !sole)
			if err != nil {
				t.Fatal(err)
			}
			want, wantTotal, err := l.searchReader(ctx, snap, q, true)
			if err != nil {
				t.Fatal(err)
			}
			if total != wantTotal || len(got) != len(want) {
				t.Fatalf("query %+v: %d hits of %d, want %d of %d", q, len(got), total, len(want), wantTotal)
			}
			for j, h := range got {
				if w := want[j]; h != w {
					t.Fatalf("query %+v rank %d: %s %v, want %s %v", q, j, h.ID, h.Score, w.ID, w.Score)
				}
			}
		}
	}
	t.Run("one resource", func(t *testing.T) { check(t, "r0", true) })
	if err := l.Index([]Doc{doc(90001, "r1"), doc(90002, "r1"), {ID: "x1", ThreadID: "t1", ResourceID: "r1", Content: strings.Join(words, " ")}}); err != nil {
		t.Fatal(err)
	}
	t.Run("two resources", func(t *testing.T) {
		check(t, "r0", false)
		for _, w := range words {
			hits, _, err := l.search(context.Background(), lexQuery{Text: w, Resource: "r0", Size: 5000})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.ID == "x1" || strings.HasPrefix(h.ID, "m9") {
					t.Fatalf("%q in r0 returned %s of r1", w, h.ID)
				}
			}
		}
	})
}

// snapshotForTest returns a snapshot of l, closed at the end of the test.
func (l *Lexical) snapshotForTest(t *testing.T) index.IndexReader {
	t.Helper()
	adv, err := l.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
