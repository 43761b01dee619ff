package recall

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// The stages of a search after its channels (merging, cross-scoring,
// fusion, session evidence, topK, range expansion) run over a Corpus: the
// resource's shard for Index.Search, another backend's view of the
// resource for its own searcher (internal/pgrecall), so that both rank
// with one implementation. The exported helpers below give such a
// searcher the query analysis Index uses (analysed terms, dates,
// compound identifiers, cosine).

// Corpus is what the stages after the channels need of the resource
// searched. Every id it is asked about was returned by a channel.
type Corpus interface {
	// Doc returns the message id (its thread, seq, role and creation time
	// are read).
	Doc(id string) *Doc
	// LexicalScore returns id's exact lexical score for the query (the
	// lexical channel's score, context rule and bonuses included); 0 when
	// it has none.
	LexicalScore(id string) float64
	// Similarity returns id's vector score for the query vector (its
	// cosine, or the context rule's lift), and false when neither it nor
	// its neighbours have a vector.
	Similarity(id string) (float64, bool)
	// TopicCosine returns the cosine of the query vector with thread's
	// centroid (the mean of its messages' vectors), false when
	// the thread has no vector.
	TopicCosine(thread string) (float64, bool)
	// Referent returns the period id's relative date points to
	// (RelativeDate; the date rule reads it), the zero Referent for none.
	Referent(id string) Referent
	// Neighbours returns the messages of thread whose seq lies in
	// [from, to], in seq order, as hits (MessageID, ThreadID, Seq, Role and
	// CreatedAt set), leaving out the query's excluded messages.
	Neighbours(ctx context.Context, thread string, from, to int64) ([]Hit, error)
}

// Scored is one channel candidate: a message and the channel's score.
type Scored struct {
	// ID is the message's id.
	ID string
	// Score is the channel's score: BM25 (lexical) or cosine similarity (vector); higher is better.
	Score float64
}

// Channels is what a search's channels answered: each channel's
// candidates, best first (at most the candidate pool, allowed messages
// only), or its error. A channel the mode leaves out is empty and nil.
type Channels struct {
	// Lexical are the lexical channel's candidates, best first.
	Lexical []Scored
	// Vector are the vector channel's candidates, best first.
	Vector []Scored
	// LexicalErr is the lexical channel's error; nil when it answered or did not run.
	LexicalErr error
	// VectorErr is the vector channel's error; nil when it answered or did not run.
	VectorErr error
}

// Ranking is how Finish ranks: the prepared query's resolved options and
// thread (Query.Prepare), the resolved tuning (Tuning.Resolve), whether
// the query has a vector (its embedding succeeded), and what the result's
// Retrieval reports: the embedder's id, the status of a vector channel
// that answered ("" means StatusOK; "degraded: …" while messages are not
// embedded, EmbeddedStatus) and the caller's backlog.
type Ranking struct {
	// Options are the query's resolved options (Prepared.Options).
	Options Options
	// Thread is the thread a scope-thread search is confined to; "" for the resource.
	Thread string
	// Query is the query text (the speaker rule reads the names it holds).
	Query string
	// Dates are the periods the query names that the lexical channel
	// scored as date terms (QueryDates asked at Query.At, those some
	// message of the resource carries; none with Tuning.NoDates): the date
	// rule raises the candidates that carry one.
	Dates []DatePeriod
	// Tuning is the resolved tuning (Tuning.Resolve).
	Tuning Tuning
	// QueryVector reports that the query was embedded, so the vector channel could run.
	QueryVector bool
	// Embedder is the embedder's id, for Retrieval.Embedder.
	Embedder string
	// VectorStatus is the vector channel's status: "" means StatusOK, "degraded: …" while messages are not embedded.
	VectorStatus string
	// Backlog is the caller's indexing backlog, for Retrieval.Note.
	Backlog Backlog
}

// Finish runs the stages of a search after its channels over c, exactly as
// Index.Search does: it merges ch, cross-scores the candidates in hybrid
// mode, fuses, applies session evidence, keeps topK and expands each hit's
// message range, and reports each channel's status. A failing channel does
// not fail the search; when both failed it returns an error, as Search
// does. Errors of c.Neighbours are returned.
func Finish(ctx context.Context, c Corpus, ch Channels, r Ranking) (*Result, error) {
	in := &channels{lexErr: ch.LexicalErr, vecErr: ch.VectorErr, lex: toScored(ch.Lexical), vec: toScored(ch.Vector)}
	if in.lexErr != nil && in.vecErr != nil {
		return nil, fmt.Errorf("recall: both channels failed: lexical: %v; vector: %w", in.lexErr, in.vecErr)
	}
	res := &Result{Retrieval: Off()}
	if r.Options.Mode != ModeVector {
		res.Retrieval.Lexical = status(in.lexErr)
	}
	if r.Options.Mode != ModeLexical {
		res.Retrieval.Embedder = r.Embedder
		res.Retrieval.Vector = status(in.vecErr)
		if in.vecErr == nil && r.VectorStatus != "" {
			res.Retrieval.Vector = r.VectorStatus
		}
	}
	hits := rankHits(c, in, &r, nil)
	var err error
	lookup := func(th string, from, to int64) ([]Hit, error) { return c.Neighbours(ctx, th, from, to) }
	if res.Hits, err = expandRange(hits, r.Options.MessageRange, lookup); err != nil {
		return nil, err
	}
	res.Retrieval.apply(r.Backlog)
	return res, nil
}

// rankHits merges the channels' candidates, fuses them and returns the
// topK hits (before range expansion); scr is the search's scratch (nil:
// allocate).
func rankHits(c Corpus, ch *channels, r *Ranking, scr *searchScratch) []Hit {
	return topHits(c, candidates(c, ch, r, scr), ch, r)
}

func toScored(in []Scored) []scored {
	out := make([]scored, len(in))
	for i, s := range in {
		out[i] = scored{id: s.ID, score: s.Score}
	}
	return out
}

// EmbeddedStatus is the vector channel's status over a resource of
// messages messages of which embedded have a vector: StatusOK, or
// "degraded: N of M messages not embedded yet".
func EmbeddedStatus(messages, embedded int) string {
	missing := messages - embedded
	if missing <= 0 {
		return StatusOK
	}
	return fmt.Sprintf("degraded: %d of %d messages not embedded yet", missing, messages)
}

// shardCorpus is the Corpus of a search over a read-locked shard.
type shardCorpus struct {
	ctx context.Context
	ix  *Index
	q   *channelQuery
	ex  map[string]bool
	// ents holds the entries the channels listed, by id (every id the
	// stages ask about is one of them): a lookup in the shard's docIndex
	// may be a binary search over a snapshot's ids, and the stages ask
	// for each candidate several times.
	ents map[string]*entry
}

// newShardCorpus returns the Corpus of a search over q's read-locked
// shard, after its channels answered ch.
func newShardCorpus(ctx context.Context, ix *Index, q *channelQuery, ex map[string]bool, ch *channels) shardCorpus {
	ents := scratchMap(q.scr, func(sc *searchScratch) map[string]*entry { return sc.ents }, len(ch.lex)+len(ch.vec))
	for _, l := range [2][]scored{ch.lex, ch.vec} {
		for _, r := range l {
			if r.e != nil {
				ents[r.id] = r.e
			}
		}
	}
	return shardCorpus{ctx: ctx, ix: ix, q: q, ex: ex, ents: ents}
}

// entry returns the shard's entry of id, nil when it has none.
func (c shardCorpus) entry(id string) *entry {
	if e := c.ents[id]; e != nil {
		return e
	}
	return c.q.s.docs.get(id)
}

func (c shardCorpus) Doc(id string) *Doc {
	if e := c.entry(id); e != nil {
		return &e.doc
	}
	return nil
}

func (c shardCorpus) LexicalScore(id string) float64 { return c.q.lexScore(c.entry(id)) }

func (c shardCorpus) Similarity(id string) (float64, bool) {
	return c.ix.similarity(c.q.s, c.entry(id), c.q.vq)
}

func (c shardCorpus) TopicCosine(thread string) (float64, bool) {
	return c.q.s.topicCos(thread, c.q.qv)
}

func (c shardCorpus) Referent(id string) Referent {
	e := c.entry(id)
	if e == nil || !e.ref.ok() {
		return Referent{}
	}
	from, to := e.ref.times()
	return Referent{from, to}
}

func (c shardCorpus) Neighbours(_ context.Context, thread string, from, to int64) ([]Hit, error) {
	return c.q.s.neighbourHits(c.ex)(thread, from, to)
}

// Resolve returns t with every default applied for an embedder of id
// embedderID, as NewIndex applies them: CandidatePool, RescoreDepth,
// VectorWeight, ContextWeight, SessionWeight, TopicWeight and MaxLoaded.
func (t Tuning) Resolve(embedderID string) Tuning {
	if t.CandidatePool <= 0 {
		t.CandidatePool = DefaultCandidatePool
	}
	if t.RescoreDepth <= 0 {
		t.RescoreDepth = DefaultRescoreDepth
	}
	if t.VectorWeight == 0 {
		t.VectorWeight = DefaultVectorWeight(embedderID)
	}
	if t.ContextWeight == 0 {
		t.ContextWeight = DefaultContextWeight
	}
	if t.SessionWeight == 0 {
		t.SessionWeight = DefaultSessionWeight(embedderID)
	}
	if t.TopicWeight == 0 {
		t.TopicWeight = DefaultTopicWeight(embedderID)
	}
	if t.SpeakerWeight == 0 {
		t.SpeakerWeight = DefaultSpeakerWeight
	}
	if t.DateWeight == 0 {
		t.DateWeight = DefaultDateWeight
	}
	if t.MaxLoaded == 0 {
		t.MaxLoaded = DefaultMaxLoaded
	}
	return t
}

// sharedAnalyzer is AnalyzerName built once outside any index.
var sharedAnalyzer = sync.OnceValues(func() (analysis.Analyzer, error) {
	return registry.NewCache().AnalyzerNamed(AnalyzerName)
})

// Analyze returns the analysed terms of text, exactly as Lexical.Terms
// (AnalyzerName: folded, lowercased, stop words removed, Porter-stemmed),
// in order, repeats kept, without an index: what another backend indexes
// and queries with.
func Analyze(text string) []string {
	a, err := sharedAnalyzer()
	if err != nil {
		panic(fmt.Sprintf("recall: analyzer %s: %v", AnalyzerName, err)) // registered in init
	}
	ts := a.Analyze([]byte(text))
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, string(t.Term))
	}
	return out
}

// DatePeriod is a date a query names: [From, To), the
// instants of local midnights in Zone, or the month Month of any year in
// Zone when From is zero.
type DatePeriod struct {
	// From is the period's start (inclusive): a local midnight in Zone; zero for a month of any year.
	From time.Time
	// To is the period's end (exclusive): a local midnight in Zone.
	To time.Time
	// Month is the month of any year, when From is zero.
	Month time.Month
	// Zone is the resource's time zone whose days and months the period
	// counts (Config.Location); nil means UTC.
	Zone *time.Location
}

// internal returns p as the lexical channel holds it.
func (p DatePeriod) internal() datePeriod {
	return datePeriod{from: p.From, to: p.To, month: p.Month, loc: zone(p.Zone)}
}

// Contains reports whether t falls in the period.
func (p DatePeriod) Contains(t time.Time) bool {
	return p.internal().contains(t)
}

// QueryDates returns the periods a query text asked at at names, in the
// resource's time zone loc (nil: UTC; Config.Location), as the lexical
// channel reads them (each scored as a BM25 term the messages created then
// carry): its absolute dates, then the periods its relative dates point to
// from at (Query.At; none when at is zero).
func QueryDates(text string, at time.Time, loc *time.Location) []DatePeriod {
	ps := queryPeriods(text, at, loc)
	out := make([]DatePeriod, len(ps))
	for i, p := range ps {
		out[i] = DatePeriod{From: p.from, To: p.to, Month: p.month, Zone: p.loc}
	}
	return out
}

// Compounds returns the compound identifiers of a query ("ZEPHYR-QUOTE",
// "order_id"), folded (Fold): a message that holds one verbatim
// (ContainsFolded) gets the idfs of its analysed parts as a bonus.
func Compounds(text string) []string {
	return compoundRE.FindAllString(Fold(text), 8)
}

// ContainsFolded reports whether Fold(s) contains sub (folded).
func ContainsFolded(s, sub string) bool { return containsFolded(s, sub) }

// Cosine is the cosine similarity of q and v computed as the vector
// channel computes it (L2-normalised, a float32 sum in index order).
func Cosine(q, v []float32) float64 { return cosine(normalised(q), normalised(v)) }
