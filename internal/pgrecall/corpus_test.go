package pgrecall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-go/mnemo/internal/pgrecall"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// message is one stored message of a test corpus, as both backends store
// it: Doc is recall's view (tool calls appended to the content), content
// and calls the messages table's columns.
type message struct {
	doc      recall.Doc
	content  string
	calls    string // tool_calls JSON; "" none
	metadata string // metadata JSON as stored
	vec      []float32
}

// corpus is a synthetic conversation history over several resources.
type corpus struct {
	emb       recall.Embedder // the embedder of the vectors
	msgs      []message
	resources []string
	threads   map[string][]string // by resource
	// zones gives some resources a time zone (recall.Config.Location,
	// pgrecall.Config.Location); nil: UTC for all.
	zones map[string]*time.Location
}

// location is c's recall.Config.Location.
func (c *corpus) location(r string) *time.Location { return c.zones[r] }

var vocab = strings.Fields(`running runs ran runner dog dogs cat cats support group supported meeting
	painting painted paint beach beaches museum trip trips travelled travel adoption adopt adopted
	counselor career school schools camping camp lake mountains résumé Straße pottery violin guitar
	concert festival garden roses tomatoes bakery bread marathon swim swimming hiking photos
	the and of a to in is was it's I'm can't`)

// answerPhrases are durations, time expressions and counts (recall's
// answer types) some messages hold.
var answerPhrases = []string{"for two weeks", "a few more days", "3 months", "yesterday", "last Friday", "in May", "back in 2021", "ages ago", "five engineers", "42 cups", "last week", "two weeks ago", "last month"}

var speakers = []string{"Caroline", "Melanie", "Joanna", ""}

var topics = []string{"travel", "family", "work", "hobby"}

// newCorpus builds resources × threads × turns messages with speakers,
// tool calls, metadata (scalars, nested, absent), dates over 2022–2023, an
// occasional compound identifier and, in a fifth of them, a duration, a
// time expression (relative dates among them) or a count (the answer
// types).
func newCorpus(rng *rand.Rand, resources []string, threads, turns int) *corpus {
	c := &corpus{emb: recall.HashEmbedder{}, resources: resources, threads: map[string][]string{}}
	emb := c.emb
	base := time.Date(2022, 1, 3, 9, 0, 0, 0, time.UTC)
	for _, r := range resources {
		for ti := range threads {
			th := fmt.Sprintf("%s-t%d", r, ti)
			c.threads[r] = append(c.threads[r], th)
			start := base.Add(time.Duration(rng.IntN(700*24)) * time.Hour)
			for i := range turns {
				c.msgs = append(c.msgs, newMessage(rng, r, th, i, start.Add(time.Duration(i)*7*time.Minute)))
			}
		}
	}
	texts := make([]string, len(c.msgs))
	for i := range c.msgs {
		texts[i] = c.msgs[i].doc.Text()
	}
	vs, _ := emb.Embed(context.Background(), texts)
	for i := range c.msgs {
		if rng.IntN(20) != 0 { // some messages are not embedded yet
			c.msgs[i].vec = vs[i]
		}
	}
	return c
}

func newMessage(rng *rand.Rand, r, th string, i int, at time.Time) message {
	words := make([]string, 1+rng.IntN(18))
	for k := range words {
		words[k] = vocab[rng.IntN(len(vocab))]
	}
	if rng.IntN(25) == 0 {
		words = append(words, "ZEPHYR-QUOTE")
	}
	if rng.IntN(5) == 0 {
		words = append(words, answerPhrases[rng.IntN(len(answerPhrases))])
	}
	role := []string{"user", "assistant"}[i%2]
	m := message{content: strings.Join(words, " ")}
	if role == "assistant" && rng.IntN(8) == 0 {
		m.calls = fmt.Sprintf(`[{"id":"c%d","name":"book_trip","arguments":{"place":"%s"}}]`, i, vocab[rng.IntN(len(vocab))])
	}
	if i > 0 && rng.IntN(10) == 0 {
		role = "tool"
	}
	md := map[string]any{}
	switch rng.IntN(5) {
	case 0:
	case 4:
		md["tags"] = []string{"a", "b"}
		md["score"] = []any{1.5, nil, "1.5", "Ünïcode", 0}[rng.IntN(5)]
		md["0"] = "zero"
	case 1:
		md["topic"] = topics[rng.IntN(len(topics))]
	case 2:
		md["topic"], md["n"] = topics[rng.IntN(len(topics))], rng.IntN(10)
	case 3:
		md["place"] = map[string]any{"city": []string{"Paris", "Oslo"}[rng.IntN(2)]}
		md["flag"] = rng.IntN(2) == 0
	}
	b, _ := json.Marshal(md)
	m.metadata = string(b)
	var decoded map[string]any
	if len(md) > 0 {
		_ = json.Unmarshal(b, &decoded)
	}
	m.doc = recall.Doc{ID: fmt.Sprintf("%s-%03d", th, i), ThreadID: th, ResourceID: r, Seq: int64(i + 1), Role: role,
		Name: speakers[rng.IntN(len(speakers))], Metadata: decoded, CreatedAt: at.Truncate(time.Millisecond)}
	if role == "tool" {
		m.doc.Name = ""
	}
	m.doc.Content = recall.WithToolCalls(m.content, []byte(m.calls))
	return m
}

// memSource serves a recall.Index the corpus.
type memSource struct{ c *corpus }

func (s memSource) ResourceDocs(_ context.Context, r string, fn func(*recall.Doc) error) error {
	for i := range s.c.msgs {
		if s.c.msgs[i].doc.ResourceID == r {
			d := s.c.msgs[i].doc
			if err := fn(&d); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s memSource) ResourceVectors(_ context.Context, r, _ string, fn func(string, []float32) error) error {
	for i := range s.c.msgs {
		if m := &s.c.msgs[i]; m.doc.ResourceID == r && m.vec != nil {
			if err := fn(m.doc.ID, m.vec); err != nil {
				return err
			}
		}
	}
	return nil
}

// sqliteIndex is the SQLite backend's recall over the corpus: bleve in
// memory and the in-memory shards.
func sqliteIndex(t testing.TB, c *corpus, tuning recall.Tuning) *recall.Index {
	t.Helper()
	lex, err := recall.OpenLexical("")
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]recall.Doc, len(c.msgs))
	for i := range c.msgs {
		docs[i] = c.msgs[i].doc
	}
	if err := lex.Index(docs); err != nil {
		t.Fatal(err)
	}
	ix, err := recall.NewIndex(recall.Config{Lexical: lex, Source: memSource{c}, Embedder: c.emb, Tuning: tuning, Location: c.location})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// postgres stores the corpus in a fresh schema the way the Postgres
// backend does (messages, lexical entries from recall.Analyze, embeddings
// of the registered embedder, an outbox row owing the embedding of each
// message without one) and returns the pool. exact drops the HNSW
// index, so that vector searches scan exactly, as the SQLite backend's.
func postgres(t testing.TB, c *corpus, exact bool) *pgxpool.Pool {
	t.Helper()
	ctx := t.Context()
	pool, err := pgstore.Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	seen := map[string]bool{}
	var threads, msgs, embs, owed [][]any
	var lds []pgstore.LexicalDoc
	for _, m := range c.msgs {
		d := m.doc
		if !seen[d.ThreadID] {
			seen[d.ThreadID] = true
			threads = append(threads, []any{d.ThreadID, d.ResourceID, int64(0), int64(0)})
		}
		var calls any
		if m.calls != "" {
			calls = m.calls
		}
		msgs = append(msgs, []any{d.ID, d.ThreadID, d.ResourceID, d.Seq, d.Role, m.content, d.Name, calls, m.metadata, d.CreatedAt.UnixMilli(), int64(1), "digest"})
		ld := pgstore.LexicalDoc{MessageID: d.ID, ResourceID: d.ResourceID, CreatedAt: d.CreatedAt.UnixMilli(), Terms: recall.Analyze(d.Text()), AnswerBits: recall.AnswerBits(d.Text())}
		if r := recall.RelativeDate(d.Text(), d.CreatedAt, c.location(d.ResourceID)); !r.IsZero() {
			ld.RefFrom, ld.RefTo, ld.RefMonths = r.From.UnixMilli(), r.To.UnixMilli(), r.Months()
		}
		lds = append(lds, ld)
		if m.vec != nil {
			embs = append(embs, []any{d.ID, c.emb.ID(), d.ResourceID, len(m.vec), pgvector.NewVector(m.vec)})
		} else {
			owed = append(owed, []any{"embed", d.ID, d.ResourceID, int64(0)})
		}
	}
	copyRows(t, pool, "threads", []string{"id", "resource_id", "created_at", "updated_at"}, threads)
	copyRows(t, pool, "messages", []string{"id", "thread_id", "resource_id", "seq", "role", "content", "name", "tool_calls", "metadata", "created_at", "tokens", "digest"}, msgs)
	// A large corpus's vectors are stored before the embedder's HNSW
	// index is built over them (EnsureEmbedder): minutes faster than
	// inserting 100,000 into it one by one.
	large := len(embs) > 20000
	if large {
		copyRows(t, pool, "embeddings", []string{"message_id", "embedder", "resource_id", "dims", "vector"}, embs)
	}
	e, err := pgstore.EnsureEmbedder(ctx, pool, c.emb.ID(), c.emb.Dims())
	if err != nil {
		t.Fatal(err)
	}
	if !large {
		copyRows(t, pool, "embeddings", []string{"message_id", "embedder", "resource_id", "dims", "vector"}, embs)
	}
	copyRows(t, pool, "outbox", []string{"op", "message_id", "resource_id", "created_at"}, owed)
	if len(lds) < 2000 {
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return pgstore.PutLexical(ctx, tx, lds) }); err != nil {
			t.Fatal(err)
		}
	} else {
		// A large corpus in one statement (PutLexical runs one per
		// document, each firing the statistics triggers): the same rows.
		rows := make([][]any, len(lds))
		for i, d := range lds {
			var from, to any
			if d.RefFrom != 0 || d.RefTo != 0 {
				from, to = d.RefFrom, d.RefTo
			}
			rows[i] = []any{d.MessageID, d.ResourceID, d.CreatedAt, d.Terms, int16(d.AnswerBits), from, to, int16(d.RefMonths)}
		}
		copyRows(t, pool, "lexical_docs", []string{"message_id", "resource_id", "created_at", "terms", "atypes", "ref_from", "ref_to", "ref_months"}, rows)
	}
	if exact {
		dropHNSW(t, pool, e)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE threads, messages, lexical_docs, lexical_df, lexical_stats, embeddings`); err != nil {
		t.Fatal(err)
	}
	return pool
}

// dropHNSW drops e's HNSW index: its searches then scan exactly.
func dropHNSW(t testing.TB, pool *pgxpool.Pool, e pgstore.Embedder) {
	t.Helper()
	if _, err := pool.Exec(t.Context(), `DROP INDEX `+pgx.Identifier{e.Index}.Sanitize()); err != nil {
		t.Fatal(err)
	}
}

func copyRows(t testing.TB, pool *pgxpool.Pool, table string, cols []string, rows [][]any) {
	t.Helper()
	if _, err := pool.CopyFrom(t.Context(), pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
		t.Fatalf("copy %s: %v", table, err)
	}
}

func newSearcher(t testing.TB, pool *pgxpool.Pool, tuning recall.Tuning) *pgrecall.Searcher {
	t.Helper()
	return newSearcherWith(t, pool, recall.HashEmbedder{}, tuning)
}

func newSearcherWith(t testing.TB, pool *pgxpool.Pool, emb recall.Embedder, tuning recall.Tuning) *pgrecall.Searcher {
	t.Helper()
	s, err := pgrecall.New(pgrecall.Config{Pool: pool, Embedder: emb, Tuning: tuning})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
