package pgrecall

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/mnemo-go/mnemo/recall"
)

// view is one search's read of its resource: the messages fetched so far
// (the channels' candidates and the turns around them), with what scoring
// needs of each. It lives for one search only.
type view struct {
	s        *Searcher
	q        recall.Query
	p        recall.Prepared
	qv       []float32
	docs     map[string]*vdoc
	missing  map[string]bool      // asked for, not in the resource
	lex      *lexScorer           // nil until prepareLexical succeeded
	lexTerms []string             // the terms whose occurrences rows carry
	topics   map[string][]float32 // candidate threads' vector sums (session topic)
	// universe, when not nil, holds every message the channels may rank:
	// those the filter allows and the turns around them (restrict).
	universe []string
	// allowedOK, when the filter allows more than directLimit messages,
	// says which of universe its SQL condition allows (true) and which
	// are only turns around those (restrict; allowedMatchesSQL).
	allowedOK []bool
	// broad says the filter allows more than broadAt messages: universe
	// is nil and each channel ranks the resource by its own index,
	// checking the filter on its candidates (restrict).
	broad bool
}

// vdoc is one fetched message.
type vdoc struct {
	doc        recall.Doc
	prev, next string          // the turns before and after it in its thread ("" none)
	lexLen     int             // its analysed terms (the BM25 document length)
	atypes     uint8           // its answer types (lexical_docs.atypes; 0 when not tagged)
	ref        recall.Referent // its relative date (lexical_docs.ref_from, ref_to; zero for none)
	tf         []int           // occurrences of view.lexTerms
	vec        []float32       // its stored vector; nil when not embedded (or not read)
	vecDone    bool            // vec was read (ensureVectors)
	own        float64         // memoised own lexical score
	ownDone    bool
}

func newView(s *Searcher, q recall.Query, p recall.Prepared, qv []float32) *view {
	return &view{s: s, q: q, p: p, qv: qv, docs: map[string]*vdoc{}, missing: map[string]bool{}}
}

// allowed says whether d may be returned: scope, exclusion and filter.
func (v *view) allowed(d *vdoc) bool {
	return d != nil && (v.p.Thread == "" || d.doc.ThreadID == v.p.Thread) && !v.q.Exclude[d.doc.ID] && v.p.Filter.Match(&d.doc)
}

// restricted is true when allowed checks more than the scope.
func (v *view) restricted() bool { return v.p.Filter != nil || len(v.q.Exclude) > 0 }

// context returns the turns d is matched through under the turn-context
// rule (recall's contextOf): the one before and, unless NoTurnAfter, the
// one after; both nil without the rule.
func (v *view) context(d *vdoc) (prev, next *vdoc) {
	t := v.s.tuning
	if t.ContextWeight <= 0 || d == nil {
		return nil, nil
	}
	if !t.NoTurnAfter {
		next = v.docs[d.next]
	}
	return v.docs[d.prev], next
}

// ensure fetches ids and the hops turns before and after each in its
// thread (hops 1: their neighbours; 2: theirs too), in one read, unless
// they are all fetched already.
func (v *view) ensure(ctx context.Context, ids []string, hops int) error {
	if v.reached(ids, hops) {
		return nil
	}
	return v.fetch(ctx, ids, hops)
}

// reached reports whether every message within hops turns of ids is
// fetched (or known not to be in the resource).
func (v *view) reached(ids []string, hops int) bool {
	for h := 0; ; h++ {
		var next []string
		for _, id := range ids {
			if id == "" || v.missing[id] {
				continue
			}
			d := v.docs[id]
			if d == nil {
				return false
			}
			if h < hops {
				next = append(next, d.prev, d.next)
			}
		}
		if h == hops || len(next) == 0 {
			return true
		}
		ids = next
	}
}

// fetchSQL reads messages of a resource by id and the $4 turns before and
// after each in its thread (but those already read, $5), each with the
// turns around it, its lexical entry's length and query-term occurrences,
// and its vector of embedder $6 ("" when the search needs no vector).
//
// (OFFSET 0 keeps the planner from turning the lexical entry's subquery
// into a join, which computed the occurrences for every entry of the
// table: 66 ms for 300 messages of 10,000.)
const fetchSQL = `WITH c AS MATERIALIZED (SELECT id, thread_id, seq FROM messages WHERE id = ANY($1) AND resource_id = $2),
w AS (SELECT id FROM c
	UNION SELECT x.id FROM c, LATERAL (SELECT p.id FROM messages p WHERE p.thread_id = c.thread_id AND p.seq < c.seq ORDER BY p.seq DESC LIMIT $4) x
	UNION SELECT x.id FROM c, LATERAL (SELECT n.id FROM messages n WHERE n.thread_id = c.thread_id AND n.seq > c.seq ORDER BY n.seq LIMIT $4) x)
SELECT m.id, m.thread_id, m.seq, m.role, m.name, m.content, m.tool_calls, m.metadata, m.created_at,
	coalesce((SELECT p.id FROM messages p WHERE p.thread_id = m.thread_id AND p.seq < m.seq ORDER BY p.seq DESC LIMIT 1), ''),
	coalesce((SELECT n.id FROM messages n WHERE n.thread_id = m.thread_id AND n.seq > m.seq ORDER BY n.seq LIMIT 1), ''),
	coalesce(d.len, 0), coalesce(d.tf, '{}'), coalesce(d.atypes, 0), d.ref_from, d.ref_to, e.vector
FROM w JOIN messages m ON m.id = w.id
LEFT JOIN embeddings e ON e.message_id = m.id AND e.embedder = $6
LEFT JOIN LATERAL (SELECT cardinality(x.terms) AS len, x.atypes, x.ref_from, x.ref_to,
		ARRAY(SELECT coalesce(cardinality(array_positions(x.terms, qt)), 0) FROM unnest($3::text[]) WITH ORDINALITY AS q(qt, i) ORDER BY i) AS tf
	FROM lexical_docs x WHERE x.message_id = m.id OFFSET 0) d ON true
WHERE NOT (m.id = ANY($5))`

// vectorsSQL reads the vectors of one embedder for messages of a resource.
// (by the primary key: the view asks only for messages of the resource it
// read).
const vectorsSQL = `SELECT message_id, vector FROM embeddings WHERE message_id = ANY($1) AND embedder = $2`

func (v *view) fetch(ctx context.Context, ids []string, hops int) error {
	terms := v.lexTerms
	if terms == nil {
		terms = []string{}
	}
	known := make([]string, 0, len(v.docs))
	for id := range v.docs {
		known = append(known, id)
	}
	emb := ""
	if v.qv != nil {
		emb = v.s.emb.ID()
	}
	rows, err := v.s.pool.Query(ctx, fetchSQL, ids, v.q.ResourceID, terms, hops, known, emb)
	if err != nil {
		return fmt.Errorf("pgrecall: read messages of %s: %w", v.q.ResourceID, err)
	}
	var (
		d        vdoc
		calls    *string
		metadata string
		created  int64
		vec      *pgvector.Vector
		atypes   int16
		refFrom  *int64
		refTo    *int64
	)
	_, err = pgx.ForEachRow(rows, []any{&d.doc.ID, &d.doc.ThreadID, &d.doc.Seq, &d.doc.Role, &d.doc.Name, &d.doc.Content, &calls, &metadata,
		&created, &d.prev, &d.next, &d.lexLen, &d.tf, &atypes, &refFrom, &refTo, &vec}, func() error {
		nd := d
		nd.atypes = uint8(atypes)
		nd.ref = recall.Referent{}
		if refFrom != nil && refTo != nil {
			nd.ref = recall.Referent{From: time.UnixMilli(*refFrom).UTC(), To: time.UnixMilli(*refTo).UTC()}
		}
		nd.doc.ResourceID = v.q.ResourceID
		nd.doc.CreatedAt = time.UnixMilli(created).UTC()
		nd.doc.Metadata = decodeMetadata(metadata)
		if calls != nil {
			nd.doc.Content = recall.WithToolCalls(nd.doc.Content, []byte(*calls))
		}
		nd.vecDone = v.qv != nil
		if vec != nil {
			nd.vec = vec.Slice()
		}
		v.docs[nd.doc.ID] = &nd
		d.tf, vec = nil, nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("pgrecall: read messages of %s: %w", v.q.ResourceID, err)
	}
	for _, id := range ids {
		if id != "" && v.docs[id] == nil {
			v.missing[id] = true
		}
	}
	return nil
}

// ensureVectors reads the vectors of the fetched messages among ids and
// of the turns around them (what Similarity reads).
func (v *view) ensureVectors(ctx context.Context, ids []string) error {
	var need []string
	add := func(id string) {
		if d := v.docs[id]; d != nil && !d.vecDone {
			d.vecDone = true
			need = append(need, id)
		}
	}
	for _, id := range ids {
		add(id)
		if d := v.docs[id]; d != nil {
			add(d.prev)
			add(d.next)
		}
	}
	if len(need) == 0 || v.qv == nil {
		return nil
	}
	rows, err := v.s.pool.Query(ctx, vectorsSQL, need, v.s.emb.ID())
	if err != nil {
		return fmt.Errorf("pgrecall: read vectors of %s: %w", v.q.ResourceID, err)
	}
	var id string
	var vec pgvector.Vector // binary: a quarter of real[]'s decoding
	_, err = pgx.ForEachRow(rows, []any{&id, &vec}, func() error {
		if d := v.docs[id]; d != nil {
			d.vec = vec.Slice()
		}
		vec = pgvector.Vector{}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pgrecall: read vectors of %s: %w", v.q.ResourceID, err)
	}
	return nil
}

// decodeMetadata decodes a message's metadata as the SQLite backend's
// source does (msgstore.DecodeMetadata): nil for "{}" or invalid JSON.
func decodeMetadata(s string) map[string]any {
	if s == "" || s == "{}" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

// cosine is d's own cosine with the query vector, and whether it has a
// vector.
func (v *view) cosine(d *vdoc) (float64, bool) {
	if d == nil || d.vec == nil || v.qv == nil {
		return 0, false
	}
	return recall.Cosine(v.qv, d.vec), true
}

// Doc implements recall.Corpus.
func (v *view) Doc(id string) *recall.Doc {
	if d := v.docs[id]; d != nil {
		return &d.doc
	}
	return nil
}

// LexicalScore implements recall.Corpus: the lexical channel's score.
func (v *view) LexicalScore(id string) float64 {
	if v.lex == nil {
		return 0
	}
	return v.lex.score(v, v.docs[id])
}

// Similarity implements recall.Corpus: recall's similarity (its cosine,
// or α × the positive cosine of the turn before or after, or its exchange
// score, when higher).
func (v *view) Similarity(id string) (float64, bool) {
	d := v.docs[id]
	sim, ok := math.Inf(-1), false
	if c, has := v.cosine(d); has {
		sim, ok = c, true
	}
	own := sim
	prev, next := v.context(d)
	for _, n := range []*vdoc{prev, next} {
		if c, has := v.cosine(n); has && c > 0 {
			sim, ok = max(sim, v.s.tuning.ContextWeight*c), true
		}
	}
	if x, has := v.exchange(d, own); has {
		sim = max(sim, x)
	}
	return sim, ok
}

// Referent implements recall.Corpus: the message's relative date
// (lexical_docs.ref_from, ref_to), zero for none or not fetched.
func (v *view) Referent(id string) recall.Referent {
	if d := v.docs[id]; d != nil {
		return d.ref
	}
	return recall.Referent{}
}

// neighboursSQL reads a thread's messages in a seq range.
const neighboursSQL = `SELECT id, seq, role, created_at FROM messages
WHERE thread_id = $1 AND resource_id = $2 AND seq BETWEEN $3 AND $4 ORDER BY seq`

// Neighbours implements recall.Corpus: the thread's messages in
// [from, to] but the excluded ones.
func (v *view) Neighbours(ctx context.Context, thread string, from, to int64) ([]recall.Hit, error) {
	rows, err := v.s.pool.Query(ctx, neighboursSQL, thread, v.q.ResourceID, from, to)
	if err != nil {
		return nil, fmt.Errorf("pgrecall: neighbours in %s: %w", thread, err)
	}
	var out []recall.Hit
	var h recall.Hit
	var created int64
	_, err = pgx.ForEachRow(rows, []any{&h.MessageID, &h.Seq, &h.Role, &created}, func() error {
		if !v.q.Exclude[h.MessageID] {
			out = append(out, recall.Hit{MessageID: h.MessageID, ThreadID: thread, Seq: h.Seq, Role: h.Role, CreatedAt: time.UnixMilli(created).UTC()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pgrecall: neighbours in %s: %w", thread, err)
	}
	return out, nil
}

// prepareRanking fetches what Finish asks of the candidates: in hybrid
// mode each candidate and its neighbours (for its score in the other
// channel).
func (v *view) prepareRanking(ctx context.Context, ch recall.Channels) error {
	var ids []string
	for _, l := range [][]recall.Scored{ch.Lexical, ch.Vector} {
		for _, c := range l {
			ids = append(ids, c.ID)
		}
	}
	hops := 0
	if v.p.Options.Mode == recall.ModeHybrid {
		hops = 1
	}
	if err := v.ensure(ctx, ids, hops); err != nil {
		return err
	}
	if hops > 0 {
		if err := v.ensureVectors(ctx, ids); err != nil {
			return err
		}
	}
	if v.p.Options.Mode != recall.ModeHybrid || v.p.Thread != "" || v.qv == nil || v.s.tuning.TopicWeight <= 0 {
		return nil
	}
	threads := map[string]bool{}
	for _, id := range ids {
		if d := v.docs[id]; d != nil {
			threads[d.doc.ThreadID] = true
		}
	}
	return v.fetchTopics(ctx, threads)
}

// topicsSQL sums the vectors of each thread (pgvector's sum: float8
// accumulators, a float4 result).
const topicsSQL = `SELECT m.thread_id, sum(e.vector)::real[] FROM embeddings e JOIN messages m ON m.id = e.message_id
WHERE e.embedder = $1 AND e.resource_id = $2 AND m.thread_id = ANY($3) GROUP BY m.thread_id`

// fetchTopics reads the vector sums of threads (the session-topic rule's
// centroids, up to scale).
func (v *view) fetchTopics(ctx context.Context, threads map[string]bool) error {
	list := make([]string, 0, len(threads))
	for th := range threads {
		list = append(list, th)
	}
	rows, err := v.s.pool.Query(ctx, topicsSQL, v.s.emb.ID(), v.q.ResourceID, list)
	if err != nil {
		return fmt.Errorf("pgrecall: thread topics of %s: %w", v.q.ResourceID, err)
	}
	v.topics = map[string][]float32{}
	var th string
	var sum []float32
	_, err = pgx.ForEachRow(rows, []any{&th, &sum}, func() error {
		v.topics[th] = sum
		sum = nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("pgrecall: thread topics of %s: %w", v.q.ResourceID, err)
	}
	return nil
}

// TopicCosine implements recall.Corpus: the query's cosine with the
// thread's centroid (recall's topicCos over the thread's vector sum).
func (v *view) TopicCosine(thread string) (float64, bool) {
	sum := v.topics[thread]
	if sum == nil || v.qv == nil {
		return 0, false
	}
	return recall.CentroidCosine(sum, v.qv)
}

// sortScored orders candidates by score, then id (recall's order).
func sortScored(s []recall.Scored) {
	slices.SortStableFunc(s, func(a, b recall.Scored) int { return recall.CompareScores(a.Score, b.Score, a.ID, b.ID) })
}

func firstN(s []recall.Scored, n int) []recall.Scored {
	if len(s) > n {
		return s[:n]
	}
	return s
}
