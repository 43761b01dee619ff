package recall_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// fixture is a real SQLite store plus a real on-disk bleve index, filled
// through the same path the engine uses: rows in SQLite (messages,
// embeddings), then Index.Add.
type fixture struct {
	db   *sql.DB
	ix   *recall.Index
	docs map[string]recall.Doc
}

func newFixture(t testing.TB, docs []recall.Doc) *fixture {
	t.Helper()
	return newFixtureWith(t, docs, recall.Tuning{})
}

// newFixtureWith is newFixture with tuning.
func newFixtureWith(t testing.TB, docs []recall.Doc, tuning recall.Tuning) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "mnemo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	lex, err := recall.OpenLexical(filepath.Join(dir, "index", "lexical"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: msgstore.New(db), Tuning: tuning})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	f := &fixture{db: db, ix: ix, docs: map[string]recall.Doc{}}
	f.add(t, docs)
	return f
}

func (f *fixture) add(t testing.TB, docs []recall.Doc) {
	t.Helper()
	ctx := context.Background()
	tx, err := f.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	emb := recall.HashEmbedder{}
	var vecs [][]float32
	for _, d := range docs {
		md, _ := json.Marshal(d.Metadata)
		if d.Metadata == nil {
			md = []byte("{}")
		}
		if _, err := tx.Exec(`INSERT OR IGNORE INTO threads (id, resource_id, created_at, updated_at) VALUES (?, ?, 0, 0)`, d.ThreadID, d.ResourceID); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, name, metadata, created_at, tokens, digest) VALUES (?,?,?,?,?,?,?,?,?,1,'')`,
			d.ID, d.ThreadID, d.ResourceID, d.Seq, d.Role, d.Content, d.Name, string(md), d.CreatedAt.UnixMilli()); err != nil {
			t.Fatal(err)
		}
		v, _ := emb.Embed(ctx, []string{d.Text()})
		if _, err := tx.Exec(`INSERT INTO embeddings (message_id, embedder, resource_id, dims, vector) VALUES (?,?,?,?,?)`,
			d.ID, emb.ID(), d.ResourceID, emb.Dims(), msgstore.EncodeVector(v[0])); err != nil {
			t.Fatal(err)
		}
		vecs = append(vecs, v[0])
		f.docs[d.ID] = d
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.ix.Add(ctx, docs, vecs); err != nil {
		t.Fatal(err)
	}
}

var words = []string{"apple", "banana", "cherry", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mango", "nectar", "oscar", "papaya"}

// corpus makes n messages over resources r1 and r2, 4 threads each.
func corpus(n int, seed uint64) []recall.Doc {
	r := rand.New(rand.NewPCG(seed, 7))
	seqs := map[string]int64{}
	roles := []string{"user", "assistant"}
	var docs []recall.Doc
	for i := 0; i < n; i++ {
		res := fmt.Sprintf("r%d", 1+i%2)
		th := fmt.Sprintf("%s-t%d", res, r.IntN(4))
		seqs[th]++
		var text []string
		for j := 0; j < 3+r.IntN(12); j++ {
			text = append(text, words[r.IntN(len(words))])
		}
		docs = append(docs, recall.Doc{
			ID: fmt.Sprintf("m%04d", i), ThreadID: th, ResourceID: res, Seq: seqs[th], Role: roles[r.IntN(2)],
			Content: fmt.Sprint(text), Metadata: map[string]any{"n": float64(r.IntN(10)), "tag": words[r.IntN(4)]},
			CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute),
		})
	}
	return docs
}

func search(t *testing.T, f *fixture, q recall.Query) []recall.Hit {
	t.Helper()
	res, err := f.ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return res.Hits
}

func TestSearchScopeIsolation(t *testing.T) {
	f := newFixture(t, corpus(300, 1))
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
		hits := search(t, f, recall.Query{Text: "apple mango", ResourceID: "r1", Options: recall.Options{TopK: 50, Mode: mode, MessageRange: recall.Range{Before: 2, After: 2}}})
		if len(hits) < 50 {
			t.Fatalf("%s: %d hits, want ≥ 50", mode, len(hits))
		}
		for _, h := range hits {
			if got := f.docs[h.MessageID].ResourceID; got != "r1" {
				t.Fatalf("%s: hit %s of resource %s", mode, h.MessageID, got)
			}
		}
		// A filter naming another resource's thread cannot widen the scope.
		hits = search(t, f, recall.Query{Text: "apple", ResourceID: "r1", Options: recall.Options{TopK: 10, Mode: mode, Filter: json.RawMessage(`{"threadId":"r2-t0"}`)}})
		if len(hits) != 0 {
			t.Fatalf("%s: filter on r2's thread returned %d hits from r1", mode, len(hits))
		}
		hits = search(t, f, recall.Query{Text: "apple", ResourceID: "r1", ThreadID: "r1-t2", Options: recall.Options{TopK: 20, Mode: mode, Scope: recall.ScopeThread}})
		if len(hits) == 0 {
			t.Fatalf("%s: no hits in thread scope", mode)
		}
		for _, h := range hits {
			if h.ThreadID != "r1-t2" {
				t.Fatalf("%s: thread scope returned %s", mode, h.ThreadID)
			}
		}
	}
}

// TestSearchFilterOracle checks that a filtered search returns the true topK
// among the matching messages: the same as ranking every message of the
// scope (TopK = all) and keeping the matching ones, for filters that match
// many, few or one message.
func TestSearchFilterOracle(t *testing.T) {
	filterOracle(t, newFixture(t, corpus(400, 2)))
}

// TestSearchFilterOracleSoleResource is TestSearchFilterOracle over an
// index that holds one resource (its lexical search leaves the resource
// term out), with bleve enumerating the matches (the path of a resource
// above the in-memory bound), and with filters that allow no message (the
// lexical channel answers at once): no hits in every mode.
func TestSearchFilterOracleSoleResource(t *testing.T) {
	docs := corpus(400, 2)
	for i := range docs {
		docs[i].ResourceID = "r1" // threads r1-t* and r2-t*, all in r1
	}
	for _, tuning := range []recall.Tuning{{}, {BleveMatches: true}} {
		f := newFixtureWith(t, docs, tuning)
		filterOracle(t, f)
		for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
			for _, fl := range []string{`{"threadId":"none"}`, `{"role":"tool"}`, `{"$and":[{"seq":1},{"seq":2}]}`} {
				for _, scope := range []recall.Scope{recall.ScopeResource, recall.ScopeThread} {
					got := search(t, f, recall.Query{Text: "banana golf kilo", ResourceID: "r1", ThreadID: "r2-t1",
						Options: recall.Options{TopK: 5, Mode: mode, Scope: scope, Filter: json.RawMessage(fl), MessageRange: recall.Range{Before: 1, After: 1}}})
					if len(got) != 0 {
						t.Fatalf("%s %s %s (BleveMatches %v): %d hits, want none", mode, scope, fl, tuning.BleveMatches, len(got))
					}
				}
			}
		}
	}
}

// filterOracle checks f's filtered searches of resource r1 against the
// unfiltered ranking of every message (TestSearchFilterOracle).
func filterOracle(t *testing.T, f *fixture) {
	t.Helper()
	filters := []string{
		`{"role":"user"}`,
		`{"metadata.n":{"$gte":8}}`,
		`{"$and":[{"metadata.n":9},{"role":"assistant"},{"metadata.tag":"apple"}]}`,
		`{"$or":[{"seq":1},{"threadId":"r1-t3"}]}`,
		`{"$not":{"metadata.tag":{"$in":["apple","banana","cherry"]}}}`,
		`{"seq":{"$gt":40,"$lte":42}}`,
	}
	for _, mode := range []recall.Mode{recall.ModeLexical, recall.ModeVector, recall.ModeHybrid} {
		for _, fl := range filters {
			pf, err := recall.ParseFilter([]byte(fl))
			if err != nil {
				t.Fatal(err)
			}
			all := search(t, f, recall.Query{Text: "banana golf kilo", ResourceID: "r1", Options: recall.Options{TopK: recall.MaxTopKForTest, Mode: mode}})
			recall.SortByRank(all)
			var want []string
			for _, h := range all {
				d := f.docs[h.MessageID]
				if pf.Match(&d) {
					want = append(want, h.MessageID)
				}
			}
			if len(want) == 0 {
				t.Fatalf("%s %s: oracle matched nothing", mode, fl)
			}
			for _, k := range []int{1, 5, 20} {
				got := search(t, f, recall.Query{Text: "banana golf kilo", ResourceID: "r1", Options: recall.Options{TopK: k, Mode: mode, Filter: json.RawMessage(fl)}})
				recall.SortByRank(got)
				var ids []string
				for _, h := range got {
					ids = append(ids, h.MessageID)
				}
				w := want[:min(k, len(want))]
				if mode != recall.ModeHybrid && !slices.Equal(ids, w) {
					t.Fatalf("%s %s top%d:\n got %v\nwant %v", mode, fl, k, ids, w)
				}
				if len(ids) != len(w) {
					t.Fatalf("%s %s top%d: %d hits, want %d", mode, fl, k, len(ids), len(w))
				}
			}
		}
	}
}

func TestSearchExcludeAndRange(t *testing.T) {
	var docs []recall.Doc
	for i := 1; i <= 10; i++ {
		docs = append(docs, recall.Doc{ID: fmt.Sprintf("a%02d", i), ThreadID: "ta", ResourceID: "r", Seq: int64(i), Role: "user", Content: fmt.Sprintf("filler words %d", i), CreatedAt: time.Unix(int64(i), 0)})
	}
	docs[0].Content = "zebra first"
	docs[9].Content = "zebra last"
	docs[4].Content = "zebra middle"
	// Without the turn-context rule, which would also find the turns after
	// the zebra turns (TestTurnContext).
	f := newFixtureWith(t, docs, recall.Tuning{ContextWeight: -1})
	q := recall.Query{Text: "zebra", ResourceID: "r", Options: recall.Options{TopK: 3, Mode: recall.ModeLexical, MessageRange: recall.Range{Before: 1, After: 2}}}
	hits := search(t, f, q)
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%d%s", h.Seq, h.Reason[:1]))
	}
	// Hits 1, 5, 10; range before 1, after 2: 1..3, 4..7, 9..10 (10 is last).
	want := []string{"1h", "2r", "3r", "4r", "5h", "6r", "7r", "9r", "10h"}
	if !slices.Equal(got, want) {
		t.Fatalf("expanded %v, want %v", got, want)
	}
	q.Exclude = map[string]bool{"a05": true, "a02": true}
	hits = search(t, f, q)
	got = got[:0]
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%d%s", h.Seq, h.Reason[:1]))
	}
	want = []string{"1h", "3r", "9r", "10h"}
	if !slices.Equal(got, want) {
		t.Fatalf("with exclusions %v, want %v", got, want)
	}
}

func TestSearchThreshold(t *testing.T) {
	f := newFixture(t, corpus(200, 3))
	q := recall.Query{Text: "apple banana cherry", ResourceID: "r2", Options: recall.Options{TopK: 200, Mode: recall.ModeVector}}
	all := search(t, f, q)
	var sims []float64
	for _, h := range all {
		sims = append(sims, *h.Vector)
	}
	sort.Float64s(sims)
	th := sims[len(sims)/2]
	q.Options.Threshold = th
	above := search(t, f, q)
	if len(above) == 0 || len(above) >= len(all) {
		t.Fatalf("threshold %v kept %d of %d", th, len(above), len(all))
	}
	for _, h := range above {
		if *h.Vector < th {
			t.Fatalf("hit with cosine %v under threshold %v", *h.Vector, th)
		}
	}
	// In hybrid mode, a message under the threshold is still reachable
	// lexically, but never carries a vector score under the threshold.
	q.Options.Mode = recall.ModeHybrid
	for _, h := range search(t, f, q) {
		if h.Vector != nil && *h.Vector < th {
			t.Fatalf("hybrid hit with vector score %v under threshold %v", *h.Vector, th)
		}
	}
}
