package recall

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// TestLexicalWithoutAll: a new index has no "_all" field, and answers
// every lexical search (scope resource, thread, ids) with the same matches,
// totals and scores (every match asked for) as an index built with the mapping before (an empty
// _all field per message), which OpenLexical still opens as it is.
func TestLexicalWithoutAll(t *testing.T) {
	dir := t.TempDir()
	before := newMapping()
	delete(before.DefaultMapping.Properties, "_all") // the mapping before
	// Made as the mnemo before it made indexes: without unsafe_batch
	// (67a441cc), whose Batch returns before the mapping is persisted, so
	// an index closed at once reopened without one ("error parsing mapping
	// JSON"; CI of 29aa650b).
	cfg := lexicalConfig()
	delete(cfg, "unsafe_batch")
	old, err := bleve.NewUsing(dir+"/old", before, scorch.Name, scorch.Name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	indexes := map[string]*Lexical{}
	for _, name := range []string{"old", "new"} {
		l, err := OpenLexical(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		indexes[name] = l
	}
	words := strings.Fields("apple banana cherries delta echoing fox golf hotels india juliet kilo lima mango running runs")
	rng := rand.New(rand.NewPCG(5, 6))
	var docs []Doc
	for i := range 2000 {
		ws := make([]string, 2+rng.IntN(14))
		for j := range ws {
			ws[j] = words[rng.IntN(len(words))]
		}
		docs = append(docs, Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i%9), ResourceID: fmt.Sprintf("r%d", i%4), Content: strings.Join(ws, " ")})
	}
	for _, l := range indexes {
		for start := 0; start < len(docs); start += 450 {
			if err := l.Index(docs[start:min(start+450, len(docs))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, want := range map[string]bool{"old": true, "new": false} {
		fields, err := indexes[name].idx.Fields()
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(fields, "_all"); got != want {
			t.Errorf("%s index: _all field %v, want %v (fields %q)", name, got, want, fields)
		}
	}
	for i := range 80 {
		q := lexQuery{Text: words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))], Resource: fmt.Sprintf("r%d", i%4), Size: len(docs)}
		if i%3 == 1 {
			q.Thread = fmt.Sprintf("t%d", i%9)
		}
		if i%3 == 2 {
			for j := range 50 {
				q.IDs = append(q.IDs, fmt.Sprintf("m%05d", (i*89+j*7)%2000))
			}
		}
		oh, ot, err1 := indexes["old"].search(context.Background(), q)
		nh, nt, err2 := indexes["new"].search(context.Background(), q)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		// Every match, in a canonical order: two builds can order equal
		// scores differently (bleve's document numbers).
		for _, hs := range [][]lexHit{oh, nh} {
			slices.SortFunc(hs, func(a, b lexHit) int {
				if a.Score != b.Score {
					return cmp.Compare(b.Score, a.Score)
				}
				return strings.Compare(a.ID, b.ID)
			})
		}
		if ot != nt || len(nh) != nt || !slices.Equal(oh, nh) {
			t.Fatalf("query %+v: new index %d hits of %d %v, old %d of %d %v", q, len(nh), nt, nh, len(oh), ot, oh)
		}
	}
}
