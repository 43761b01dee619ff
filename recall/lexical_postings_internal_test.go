package recall

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// lexicalScan is the exhaustive lexical channel, the reference of
// lexicalPostings: every message of the scope scored, the matches (score
// above 0) that are allowed ranked, the first q.pool kept.
func lexicalScan(q *channelQuery) []scored {
	var out []scored
	for id, e := range q.s.docs.all() {
		if q.thread != "" && e.doc.ThreadID != q.thread {
			continue
		}
		if sc := q.lexScore(e); sc > 0 && q.allowed(e) {
			out = append(out, scored{id, sc, e})
		}
	}
	sortScored(out)
	return firstN(out, q.pool)
}

// TestLexicalPostingsExact checks the lexical channel over the shard's
// postings against the exhaustive scan on random corpora: same ids, same
// order, bit-equal scores, for resource and thread scope, with exclusions,
// filters that allow few or many messages, dates and compound identifiers
// in the queries, repeated words (frequencies past what a posting holds),
// replaced and deleted messages, and every turn-context setting. With
// keepOwn, every own score the fusion then reads from the channel's
// scratch is bit-equal to its terms' (TestKeptOwnScores, keptOwnExact).
func TestLexicalPostingsExact(t *testing.T) {
	lex, err := OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lex.Close() })
	for _, tuning := range []Tuning{{}, {ContextWeight: -1}, {NoTurnAfter: true}, {ContextWeight: 0.9, NoCompounds: true}, {ContextWeight: 3}} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%+v/seed%d", tuning, seed), func(t *testing.T) {
				postingsExact(t, lex, tuning, seed)
			})
		}
	}
}

var postingsWords = strings.Fields("alpha beta gamma delta zephyr quote order ledger river stone maple cobalt " +
	"harbor violet signal copper meadow lantern falcon pepper orbit canyon")

// postingsCorpus fills a shard of resource r with n random messages over
// a small vocabulary (many matches per word), some of them compound
// identifiers and repeated words, created over 2022.
func postingsCorpus(rng *rand.Rand, s *shard, lex *Lexical, n int) {
	base := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		var words []string
		for range 1 + rng.IntN(12) {
			w := postingsWords[rng.IntN(len(postingsWords))]
			switch rng.IntN(10) {
			case 0:
				w += "-" + postingsWords[rng.IntN(len(postingsWords))]
			case 1:
				w = strings.Repeat(w+" ", 14+rng.IntN(6))
			}
			words = append(words, w)
		}
		role := []string{"user", "assistant", "tool"}[rng.IntN(3)]
		d := Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", rng.IntN(12)), ResourceID: "r",
			Seq: int64(i + 1), Role: role, Content: strings.Join(words, " "),
			Metadata:  map[string]any{"k": float64(rng.IntN(50))},
			CreatedAt: base.Add(time.Duration(rng.IntN(365*24)) * time.Hour)}
		if i%97 == 0 {
			d.CreatedAt = time.Date(1200+i%3, time.Month(1+i%12), 1, 0, 0, 0, 0, time.UTC) // kept off the Unix-nanosecond array
		}
		s.putDoc(&d, lex)
	}
}

func postingsExact(t *testing.T, lex *Lexical, tuning Tuning, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 14))
	ix, err := NewIndex(Config{Lexical: lex, Source: emptySource{}, Tuning: tuning})
	if err != nil {
		t.Fatal(err)
	}
	s := newShard("r", nil, false)
	if err := s.reset(); err != nil {
		t.Fatal(err)
	}
	postingsCorpus(rng, s, lex, 3000)
	// Replace some messages (new text, same id and ord) and delete others.
	for i := range 300 {
		id := fmt.Sprintf("m%05d", rng.IntN(3000))
		if e := s.docs.get(id); e != nil && i%2 == 0 {
			d := e.doc
			d.Content = postingsWords[rng.IntN(len(postingsWords))] + " " + postingsWords[rng.IntN(len(postingsWords))]
			s.putDoc(&d, lex)
			continue
		}
		s.removeDoc(ctx, id)
	}
	filters := []string{"", `{"role":"user"}`, `{"metadata.k":{"$lt":3}}`, `{"metadata.k":7}`}
	queries := []string{"alpha", "zephyr-quote order", "river stone maple", "what happened in May 2022",
		"cobalt harbor in March 2022 violet", "what did the ledger say in March", "river on March 14, 2022", "unknownword", "signal signal copper", "falcon-pepper orbit canyon lantern",
		"ledger in March, in March 2022 and on March 14, 2022"}
	compared, nonEmpty := 0, 0
	for qi, text := range queries {
		for trial := range 6 {
			o := Options{TopK: 1 + rng.IntN(30), Mode: ModeLexical, Filter: []byte(filters[(qi+trial)%len(filters)])}
			if len(o.Filter) == 0 {
				o.Filter = nil
			}
			q := Query{Text: text, ResourceID: "r", ThreadID: fmt.Sprintf("t%d", rng.IntN(12))}
			if trial%3 == 1 {
				o.Scope = ScopeThread
			}
			if trial%2 == 0 {
				q.Exclude = map[string]bool{}
				for range rng.IntN(40) {
					q.Exclude[fmt.Sprintf("m%05d", rng.IntN(3000))] = true
				}
			}
			o, err := o.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			thread, _ := q.thread(o.Scope)
			filter, err := ParseFilter(o.Filter)
			if err != nil {
				t.Fatal(err)
			}
			if q.Exclude != nil {
				// Exclude some of the best matches too, as LoadContext's
				// recent window does.
				all := ix.channelQuery(s, Query{Text: text, ResourceID: "r", ThreadID: q.ThreadID}, o, thread, filter)
				for i, c := range lexicalScan(all) {
					if i%2 == 0 && i < 2*o.TopK {
						q.Exclude[c.id] = true
					}
				}
			}
			cq := ix.channelQuery(s, q, o, thread, filter)
			cq.pool = o.TopK // small pools exercise the pruning
			want := lexicalScan(cq)
			got, _ := ix.lexicalPostings(cq)
			if !slices.Equal(got, want) {
				t.Fatalf("query %q options %+v thread %q:\n postings %v\n scan     %v", text, o, thread, got, want)
			}
			keptOwnExact(t, ix, s, q, o, thread, filter, want)
			compared++
			if len(want) > 0 {
				nonEmpty++
			}
		}
	}
	if nonEmpty < compared/2 {
		t.Fatalf("only %d of %d comparisons had matches", nonEmpty, compared)
	}
}

// keptOwnExact is TestKeptOwnScores: the channel run with keepOwn
// returns want, and then every entry's own and lexical scores read from
// the kept scratch are bit-equal to those computed from its terms.
func keptOwnExact(t *testing.T, ix *Index, s *shard, q Query, o Options, thread string, filter *Filter, want []scored) {
	t.Helper()
	cq := ix.channelQuery(s, q, o, thread, filter)
	cq.pool, cq.keepOwn = o.TopK, true
	defer cq.lex.release()
	if got, _ := ix.lexicalPostings(cq); !slices.Equal(got, want) {
		t.Fatalf("query %q with keepOwn:\n postings %v\n scan     %v", q.Text, got, want)
	}
	if cq.lex.kept == nil {
		t.Fatal("keepOwn kept no scratch")
	}
	ref := ix.lexScorer(s, q.Text, q.At)
	for _, e := range s.docs.all() {
		if a, b := cq.lex.own(e), ref.own(e); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("query %q, %s: kept own score %v, from its terms %v", q.Text, e.doc.ID, a, b)
		}
		if a, b := cq.lex.score(e), ref.score(e); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("query %q, %s: score from the kept own scores %v, from its terms %v", q.Text, e.doc.ID, a, b)
		}
	}
	cq.lex.release()
	if cq.lex.kept != nil {
		t.Fatal("release kept the scratch")
	}
}

// emptySource is a Source with nothing stored (the test fills the shard).
type emptySource struct{}

func (emptySource) ResourceDocs(context.Context, string, func(*Doc) error) error { return nil }
func (emptySource) ResourceVectors(context.Context, string, string, func(string, []float32) error) error {
	return nil
}

// TestCompoundWholeWords checks the compound bonus: a message gets it when
// it holds the identifier's analysed words and contains it verbatim, not
// when it only contains the identifier inside a longer one ("INV-1888" in
// "INV-18880"), and the bonus never makes a match of a message that holds
// none of the query's words ("xzephyr-quotex").
func TestCompoundWholeWords(t *testing.T) {
	lex, ix, s := memShard(t)
	for i, text := range []string{"paid INV-1888 today", "paid INV-18880 today", "paid today", "a xzephyr-quotex here", "filler words only"} {
		s.putDoc(&Doc{ID: fmt.Sprint("m", i), ThreadID: fmt.Sprint("t", i), ResourceID: "r", Seq: 1, Content: text}, lex)
	}
	ls := ix.lexScorer(s, "was INV-1888 paid", time.Time{})
	bonus := func(id string) float64 {
		e := s.docs.get(id)
		return ls.score(e) - ls.contextScore(e, ls.own)
	}
	if b := bonus("m0"); b <= 0 {
		t.Errorf("INV-1888 verbatim with its words: bonus %v, want > 0", b)
	}
	if b := bonus("m1"); b != 0 {
		t.Errorf("INV-18880 for the query INV-1888: bonus %v, want 0", b)
	}
	if sc := ix.lexScorer(s, "zephyr-quote", time.Time{}).score(s.docs.get("m3")); sc != 0 {
		t.Errorf("xzephyr-quotex for the query zephyr-quote: score %v, want 0 (no word matches)", sc)
	}
}

// TestSeedWithCompound checks that a query naming an identifier lists few
// candidates when one of its words is in every message: the messages that
// hold the identifier's words and the best by their own score with their
// neighbours (seedFloor), not every match and its neighbours, which the
// seed took when it subtracted the largest compound bonus from θ (at 100k
// messages, one query in ten listed 40–75 thousand). The ranking itself is
// TestLexicalPostingsExact's.
func TestSeedWithCompound(t *testing.T) {
	lex, ix, s := memShard(t)
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 3000
	for i := range n {
		words := []string{"order"}
		for range 3 + rng.IntN(8) {
			words = append(words, postingsWords[rng.IntN(len(postingsWords))])
		}
		if i%100 == 0 {
			words = append(words, "falcon-zephyr")
		}
		d := Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i/50), ResourceID: "r", Seq: int64(i%50 + 1), Role: "user", Content: strings.Join(words, " ")}
		s.putDoc(&d, lex)
	}
	o, err := Options{TopK: 5, Mode: ModeLexical}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	q := ix.channelQuery(s, Query{Text: "the falcon-zephyr order", ResourceID: "r"}, o, "", nil)
	if len(q.lex.compounds) == 0 {
		t.Fatal("the query names no compound")
	}
	sc := getLexScratch(s.ords, true)
	defer sc.release()
	sc.ownScores(context.Background(), s, q.lex)
	sc.candidates(q, sc.seedFloor(q.lex, q.pool+q.slack))
	if got, max := len(sc.cands), n/5; len(sc.touched) < n || got > max {
		t.Fatalf("%d candidates of %d matches, want at most %d", got, len(sc.touched), max)
	}
}

// TestLexScratchSparse: the lexical channel's scratch of a query scoring
// few messages of a large shard is a few bits an ord of the shard plus
// what it scores (lexScratch), not 20 bytes an ord: a first search of a
// resource paid a fresh page of Go heap for nearly every 4 KiB of it
// (issue 14, BENCHMARKS.md "the lexical scratch sparse").
func TestLexScratchSparse(t *testing.T) {
	lex, ix, s := memShard(t)
	const n = 20_000
	for i := range n {
		words := []string{"order", "ledger"}
		if i%1000 == 0 {
			words = append(words, "falcon-pepper")
		}
		d := Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i/50), ResourceID: "r", Seq: int64(i%50 + 1), Role: "user", Content: strings.Join(words, " ")}
		s.putDoc(&d, lex)
	}
	o, err := Options{TopK: 5, Mode: ModeLexical}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	q := ix.channelQuery(s, Query{Text: "falcon-pepper", ResourceID: "r"}, o, "", nil)
	if len(q.lex.compounds) == 0 {
		t.Fatal("the query names no compound")
	}
	runtime.GC()
	runtime.GC() // the pool emptied: the scratch is made
	var touched int
	got := allocatedBy(func() {
		sc := getLexScratch(s.ords, true)
		defer sc.release()
		if err := sc.ownScores(context.Background(), s, q.lex); err != nil {
			t.Fatal(err)
		}
		sc.candidates(q, sc.seedFloor(q.lex, q.pool+q.slack))
		touched = len(sc.touched)
	})
	if touched == 0 || touched > n/100 {
		t.Fatalf("%d messages scored, want 1 to %d", touched, n/100)
	}
	// 64 KiB of window (wordScores), 4 bytes an ord of allowance.
	if most := uint64(64<<10 + 4*n); got > most {
		t.Fatalf("the scratch took %d bytes for %d ords, want at most %d", got, n, most)
	}
}

// TestLexScratchWindowAfterPanic: a search whose lexical channel panics
// in the middle of one of wordScores's windows (a postings list read out
// of range: a snapshot copied over in place with other bytes, which
// Search recovers, snapshot_fault.go) gives back a scratch whose window
// the next search starts from zero. Before, the weights added to the
// window before the panic stayed in it, and the next search of the shard
// (or of another, through the pool) added them to the own scores of the
// messages at the same places of its windows.
func TestLexScratchWindowAfterPanic(t *testing.T) {
	lex, ix, s := memShard(t)
	const n = ownWindow + 904 // a second window, ords past the last up to its end
	rng := rand.New(rand.NewPCG(72, 1))
	for i := range n {
		words := []string{"order", "ledger"}
		for range rng.IntN(6) {
			words = append(words, postingsWords[rng.IntN(len(postingsWords))])
		}
		d := Doc{ID: fmt.Sprintf("m%05d", i), ThreadID: fmt.Sprintf("t%d", i/50), ResourceID: "r", Seq: int64(i%50 + 1), Role: "user", Content: strings.Join(words, " ")}
		s.putDoc(&d, lex)
	}
	o, err := Options{TopK: 20, Mode: ModeLexical}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	q := ix.channelQuery(s, Query{Text: "order ledger", ResourceID: "r"}, o, "", nil)
	want, err := ix.lexicalPostings(q)
	if err != nil || len(want) == 0 {
		t.Fatalf("%d hits, %v", len(want), err)
	}
	// ledger's postings end with an ord past the shard's, in the last
	// window: order's postings of that window are summed, then ledger's
	// read of the ord's length panics.
	p, ledger := &s.post, q.lex.qids[1]
	good := p.lists[ledger]
	p.lists[ledger] = append(slices.Clip(good), uint32(len(p.lens))<<tfBits|1)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the garbled postings did not panic")
			}
		}()
		ix.lexicalPostings(q)
	}()
	p.lists[ledger] = good
	got, err := ix.lexicalPostings(q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after a search that panicked, %v; before it %v", got[:3], want[:3])
	}
}
