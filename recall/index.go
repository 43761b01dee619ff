package recall

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Defaults for Config fields left zero.
const (
	// DefaultCandidatePool is how many candidates each channel contributes
	// before re-scoring and fusion.
	DefaultCandidatePool = 100
	// DefaultRescoreDepth is how many lexical candidates are re-scored
	// with the textbook BM25 (see Tuning.RescoreDepth).
	DefaultRescoreDepth = 1000
	// DefaultMaxLoaded is Tuning.MaxLoaded's default: the messages held in
	// memory over all loaded resources. A loaded message costs about
	// 2.8 KB of live heap with 384-dimension vectors (1.5 KB of them the
	// vector; measured with the synthetic corpus), so 200,000 messages are
	// about 560 MB live and 1.1 GB of heap at GOGC=100, which keeps an
	// engine of 1M messages under issue 8's 2 GiB peak RSS however many
	// resources it serves (`mnemo bench --sweep`, BENCHMARKS.md).
	DefaultMaxLoaded = 200_000
	// DefaultContextWeight is Tuning.ContextWeight's default: a reply
	// counts half its question's score (the first value measured; 0.8 was
	// about as good on both dev sets, README "Recall").
	DefaultContextWeight = 0.5
	// inMemoryFactor: without a filter, the lexical matches of a resource
	// of up to inMemoryFactor×RescoreDepth messages are counted in memory
	// first (see lexicalChannel); scanning more would cost more than bleve.
	inMemoryFactor = 4
	// directIDLimit: when the filter leaves at most this many messages, the
	// lexical channel searches exactly those ids (a bleve DocIDQuery)
	// instead of widening its candidate pool.
	directIDLimit = 2048
)

// DefaultVectorWeight returns the weight w of the vector channel in the
// weighted fusion for an embedder, chosen on the LoCoMo and LongMemEval dev
// sets (README, "Recall").
//
// 0.15 for hash-384, whose similarity is lexical-level and so mostly
// repeats BM25: swept from 0.05 to 0.3, 0.15 is where hybrid matches or
// beats lexical on every LoCoMo metric and on LongMemEval's recall metrics.
//
// 0.5 for every other embedder (semantic models). With use-lite the two
// dev sets pull apart: BM25 is far stronger on LoCoMo (best w ≈ 0.3) and
// the vector channel stronger on LongMemEval (best w ≈ 0.7); 0.5 loses
// least on both, and TestFusionSynthetic shows it staying within a few
// points of a strong vector channel as long as BM25 carries some signal.
func DefaultVectorWeight(embedderID string) float64 {
	if embedderID == HashID {
		return 0.15
	}
	return 0.5
}

// Config configures an Index. The zero value of each field means its
// default; Source is required.
type Config struct {
	// Lexical is the opened lexical index; required.
	Lexical *Lexical
	// Source loads a resource's messages and embeddings on first use;
	// required.
	Source Source
	// Embedder embeds queries; nil means HashEmbedder. It must be the
	// embedder whose vectors the engine stores.
	Embedder Embedder
	// Tuning holds the measured knobs; the zero value means the defaults.
	Tuning Tuning
	// Damaged, when set, is called after a resource loads with the ids of
	// its messages whose stored embedding had the wrong length (they were
	// skipped: the resource loads and searches without them). The engine
	// deletes those rows and queues the messages for embedding again. It
	// is called on the searching goroutine, with no lock of the Index held.
	Damaged func(ctx context.Context, resourceID string, messageIDs []string)
}

// Tuning holds the knobs of an Index that were chosen by measurement. The
// zero value of every field means its default; they exist so that
// `mnemo eval` can measure alternatives through the normal code path.
type Tuning struct {
	// CandidatePool is each channel's candidate count; 0 means
	// DefaultCandidatePool. Always at least TopK.
	CandidatePool int `json:"candidatePool,omitempty"`
	// VectorWeight is w in the weighted fusion; 0 means
	// DefaultVectorWeight(Embedder.ID()).
	VectorWeight float64 `json:"vectorWeight,omitempty"`
	// BleveScores turns the textbook BM25 re-scoring off and ranks by
	// bleve's own BM25 (see bm25Stats).
	BleveScores bool `json:"bleveScores,omitempty"`
	// NoCompounds turns the compound-identifier bonus off (see compounds).
	NoCompounds bool `json:"noCompounds,omitempty"`
	// RescoreDepth: when a query matches at most this many messages, all
	// of them are re-scored with the textbook BM25 (exact ranking), else
	// bleve's top CandidatePool are; 0 means DefaultRescoreDepth.
	RescoreDepth int `json:"rescoreDepth,omitempty"`
	// BleveMatches makes bleve enumerate the lexical matches even in a
	// resource of at most RescoreDepth messages, which the shard otherwise
	// scores in memory with the same analyser and the same result (see
	// lexicalChannel); it exists to measure and test the two against
	// each other.
	BleveMatches bool `json:"bleveMatches,omitempty"`
	// MaxNorm normalises the channel scores by max and min–max
	// (FuseWeightedMax) instead of standardising them (FuseWeighted).
	MaxNorm bool `json:"maxNorm,omitempty"`
	// NoDates turns off the date terms: absolute dates the query names
	// ("in May 2022") scored as a BM25 term that the messages created then
	// carry (see dateTerms).
	NoDates bool `json:"noDates,omitempty"`
	// ContextWeight α matches a turn through the turn before it: each
	// channel scores a turn max(own score, α × the previous turn's score).
	// A reply ("I went yesterday, it was so powerful") is about what the
	// turn before asked ("How was the support group?"), so a question
	// naming that finds the reply as well; α < 1 keeps a turn that matches
	// by itself above the reply that merely follows it. 0 means
	// DefaultContextWeight, negative means none.
	ContextWeight float64 `json:"contextWeight,omitempty"`
	// MaxLoaded bounds the messages held in memory over all loaded
	// resources (counted when a resource loads): loading one beyond it
	// unloads the least recently searched others, which load again from
	// the Source on their next search. 0 means DefaultMaxLoaded; negative
	// means no bound. The resource being loaded is never unloaded, so one
	// resource larger than the bound still loads.
	MaxLoaded int `json:"maxLoaded,omitempty"`
	// ExactVectors makes the vector channel scan chromem-go's collection
	// (exact cosine, every vector per query) instead of the shard's
	// vector index (ternary codes, then the exact cosine of a candidate
	// pool; see vecIndex); it exists to measure the two against each other
	// (TestVectorIndexRecall, `mnemo bench`'s exactness figure).
	ExactVectors bool `json:"exactVectors,omitempty"`
}

// Index answers searches over the lexical index and the per-resource
// vector collections.
//
// It is safe for concurrent use. Close closes the lexical index.
type Index struct {
	cfg    Config
	emb    Embedder
	mu     sync.Mutex
	shards map[string]*shard
	loaded int    // messages of the loaded shards, as counted at load (guarded by mu)
	tick   uint64 // search counter for least-recently-used unloading (guarded by mu)
}

// NewIndex returns an Index over cfg. It loads nothing: each resource is
// loaded from cfg.Source on its first search.
func NewIndex(cfg Config) (*Index, error) {
	if cfg.Lexical == nil || cfg.Source == nil {
		return nil, fmt.Errorf("%w: recall.Config needs Lexical and Source", ErrInvalidOptions)
	}
	if cfg.Embedder == nil {
		cfg.Embedder = HashEmbedder{}
	}
	if cfg.Tuning.CandidatePool <= 0 {
		cfg.Tuning.CandidatePool = DefaultCandidatePool
	}
	if cfg.Tuning.RescoreDepth <= 0 {
		cfg.Tuning.RescoreDepth = DefaultRescoreDepth
	}
	if cfg.Tuning.VectorWeight == 0 {
		cfg.Tuning.VectorWeight = DefaultVectorWeight(cfg.Embedder.ID())
	}
	if cfg.Tuning.ContextWeight == 0 {
		cfg.Tuning.ContextWeight = DefaultContextWeight
	}
	if cfg.Tuning.MaxLoaded == 0 {
		cfg.Tuning.MaxLoaded = DefaultMaxLoaded
	}
	return &Index{cfg: cfg, emb: cfg.Embedder, shards: map[string]*shard{}}, nil
}

// Embedder returns the embedder the index uses.
func (ix *Index) Embedder() Embedder { return ix.emb }

// Lexical returns the lexical index.
func (ix *Index) Lexical() *Lexical { return ix.cfg.Lexical }

// Close closes the lexical index. The Index must not be used afterwards.
func (ix *Index) Close() error { return ix.cfg.Lexical.Close() }

// shard returns the shard of resource, loading it when needed. It may be
// unloaded again by another goroutine before the caller locks it: callers
// check s.loaded under s.mu (see Search).
func (ix *Index) shard(ctx context.Context, resource string) (*shard, error) {
	ix.mu.Lock()
	s := ix.shards[resource]
	if s == nil {
		s = newShard(resource)
		ix.shards[resource] = s
	}
	ix.tick++
	s.lastUse = ix.tick
	ix.mu.Unlock()
	s.loadMu.Lock()
	fresh := !s.loaded
	var damaged []string
	if fresh {
		if err := s.load(ctx, ix.cfg.Source, ix.emb, ix.cfg.Lexical); err != nil {
			s.loadMu.Unlock()
			return nil, err
		}
		damaged = s.damagedIDs()
	}
	s.loadMu.Unlock()
	if fresh {
		// After loadMu is released: unloading takes other shards'
		// loadMu, and two loads must not wait for each other.
		ix.unloadFor(s)
		if len(damaged) > 0 && ix.cfg.Damaged != nil {
			ix.cfg.Damaged(ctx, resource, damaged)
		}
	}
	return s, nil
}

// lockedShard returns resource's loaded shard read-locked (the caller
// unlocks s.mu), loading it again when it was unloaded meanwhile.
func (ix *Index) lockedShard(ctx context.Context, resource string) (*shard, error) {
	for {
		s, err := ix.shard(ctx, resource)
		if err != nil {
			return nil, err
		}
		s.mu.RLock()
		if s.loaded {
			return s, nil
		}
		s.mu.RUnlock()
	}
}

// unloadFor counts the freshly loaded shard s and unloads the least
// recently searched other shards while the loaded messages exceed
// Tuning.MaxLoaded.
func (ix *Index) unloadFor(s *shard) {
	s.mu.RLock()
	n := len(s.docs)
	s.mu.RUnlock()
	var victims []*shard
	ix.mu.Lock()
	if ix.shards[s.resource] == s && s.size == 0 {
		s.size = n
		ix.loaded += n
	}
	for ix.cfg.Tuning.MaxLoaded > 0 && ix.loaded > ix.cfg.Tuning.MaxLoaded {
		var v *shard
		for _, c := range ix.shards {
			if c != s && c.size > 0 && (v == nil || c.lastUse < v.lastUse) {
				v = c
			}
		}
		if v == nil {
			break
		}
		delete(ix.shards, v.resource)
		ix.loaded -= v.size
		v.size = 0
		victims = append(victims, v)
	}
	ix.mu.Unlock()
	for _, v := range victims {
		v.unload()
	}
}

// loadedShard returns resource's shard when it is loaded, else nil.
func (ix *Index) loadedShard(resource string) *shard {
	ix.mu.Lock()
	s := ix.shards[resource]
	ix.mu.Unlock()
	return s
}

// Add indexes docs lexically (one persisted bleve batch) and updates the
// in-memory state of their resources when loaded. vecs is nil or parallel to
// docs; a nil vector means "not embedded yet" (AddVectors adds it later).
// The caller stores vectors in SQLite before calling Add, so that a resource
// loaded concurrently sees them.
func (ix *Index) Add(ctx context.Context, docs []Doc, vecs [][]float32) error {
	if len(docs) == 0 {
		return nil
	}
	for i := range vecs {
		if vecs[i] != nil && len(vecs[i]) != ix.emb.Dims() {
			return fmt.Errorf("%w: vector of %s has %d dims, want %d", ErrDimension, docs[i].ID, len(vecs[i]), ix.emb.Dims())
		}
	}
	for i := range docs {
		s := ix.loadedShard(docs[i].ResourceID)
		if s == nil {
			continue
		}
		s.mu.Lock()
		if s.loaded {
			s.putDoc(&docs[i], ix.cfg.Lexical)
			if i < len(vecs) && vecs[i] != nil {
				if err := s.putVector(ctx, docs[i].ID, vecs[i]); err != nil {
					s.mu.Unlock()
					return err
				}
			}
		}
		s.mu.Unlock()
	}
	return ix.cfg.Lexical.Index(docs)
}

// AddVectors adds vectors computed after their messages were indexed
// (resource's state is updated only when loaded; SQLite holds them anyway).
func (ix *Index) AddVectors(ctx context.Context, resource string, ids []string, vecs [][]float32) error {
	s := ix.loadedShard(resource)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		return nil
	}
	for i, id := range ids {
		if len(vecs[i]) != ix.emb.Dims() {
			return fmt.Errorf("%w: vector of %s has %d dims, want %d", ErrDimension, id, len(vecs[i]), ix.emb.Dims())
		}
		if err := s.putVector(ctx, id, vecs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes ids from the lexical index and from the loaded resources.
func (ix *Index) Remove(ctx context.Context, ids []string) error {
	ix.mu.Lock()
	shards := make([]*shard, 0, len(ix.shards))
	for _, s := range ix.shards {
		shards = append(shards, s)
	}
	ix.mu.Unlock()
	for _, s := range shards {
		s.mu.Lock()
		if s.loaded {
			for _, id := range ids {
				s.removeDoc(ctx, id)
			}
		}
		s.mu.Unlock()
	}
	return ix.cfg.Lexical.Delete(ids)
}

// Forget drops every loaded resource; the next search reloads from the
// Source (after a reindex).
func (ix *Index) Forget() {
	ix.mu.Lock()
	ix.shards = map[string]*shard{}
	ix.loaded = 0
	ix.mu.Unlock()
}

// Loaded returns the number of loaded resources and the messages they
// held when they loaded.
func (ix *Index) Loaded() (resources, messages int) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, s := range ix.shards {
		if s.size > 0 {
			resources++
		}
	}
	return resources, ix.loaded
}

// VectorCount returns how many of resource's messages have a vector in the
// loaded collection, and how many messages it has, loading it if needed.
func (ix *Index) VectorCount(ctx context.Context, resource string) (vectors, messages int, err error) {
	s, err := ix.lockedShard(ctx, resource)
	if err != nil {
		return 0, 0, err
	}
	defer s.mu.RUnlock()
	return s.col.Count(), len(s.docs), nil
}

// Query is one search.
type Query struct {
	// Text is the query text; required.
	Text string
	// ResourceID is the resource searched; required. Nothing outside it is
	// ever returned.
	ResourceID string
	// ThreadID is the query's thread; required with scope thread.
	ThreadID string
	// Options are the recall options (zero fields mean defaults; TopK 0
	// means DefaultTopK); Search resolves them (Options.Resolve).
	Options Options
	// Exclude lists message ids that must not be returned, neither as hits
	// nor as range neighbours (the recent window in LoadContext). Excluded
	// messages are removed before topK.
	Exclude map[string]bool
	// Backlog is how far the caller's indexes lag behind its store; it
	// shows in Result.Retrieval.
	Backlog Backlog
}

// Result is the outcome of a search.
type Result struct {
	// Hits are the hits and their range neighbours, deduplicated and
	// ordered by thread and seq (SortByRank gives rank order).
	Hits []Hit
	// Retrieval says how each channel fared ("ok", "off", "degraded: …",
	// "unavailable: …"), names the embedder and carries the backlog's note.
	Retrieval Retrieval
}

// Search runs q. It returns ErrInvalidQuery when the resource (or, with scope
// thread, the thread) is missing, ErrInvalidOptions or a *FilterError for bad
// options. A failing channel does not fail the search: the other channel
// answers and Result.Retrieval says so; only when both fail is an error
// returned.
func (ix *Index) Search(ctx context.Context, q Query) (*Result, error) {
	o, err := q.Options.Resolve()
	if err != nil {
		return nil, err
	}
	if q.ResourceID == "" {
		return nil, fmt.Errorf("%w: no resource", ErrInvalidQuery)
	}
	thread := ""
	if o.Scope == ScopeThread {
		if q.ThreadID == "" {
			return nil, fmt.Errorf("%w: scope thread needs a thread", ErrInvalidQuery)
		}
		thread = q.ThreadID
	}
	filter, err := ParseFilter(o.Filter)
	if err != nil {
		return nil, err
	}
	// Embed the query before taking the resource's lock: a remote embedder
	// may be slow, and writers must not wait behind it.
	var qv []float32
	var qErr error
	if o.Mode != ModeLexical {
		qv, qErr = ix.embedQuery(ctx, q.Text)
	}
	s, err := ix.lockedShard(ctx, q.ResourceID)
	if err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()

	res := &Result{Retrieval: Off()}
	allowed := func(e *entry) bool {
		return e != nil && (thread == "" || e.doc.ThreadID == thread) && !q.Exclude[e.doc.ID] && filter.Match(&e.doc)
	}
	restricted := filter != nil || len(q.Exclude) > 0
	pool := max(ix.cfg.Tuning.CandidatePool, o.TopK)
	// slack is how many of a channel's top results the exclusion can
	// remove. Without a filter, asking each channel for pool+slack results
	// is exact and never needs widening; before, LoadContext's recent window
	// widened every lexical search to all its matches and every vector
	// search to the whole collection (BENCHMARKS.md). -1: a filter
	// applies, widen when it removed candidates.
	slack := -1
	if filter == nil {
		slack = 0
		for id := range q.Exclude {
			if s.docs[id] != nil {
				slack++
			}
		}
	}

	// Exact query statistics, shared by the lexical channel and the
	// cross-scoring of vector candidates.
	qterms := distinct(ix.cfg.Lexical.Terms(q.Text))
	qids := make([]uint32, len(qterms))
	idfs := make([]float64, len(qterms))
	for i, t := range qterms {
		qids[i], idfs[i] = s.stats.lookup(t), s.stats.idf(t)
	}
	var compounds []compound
	if !ix.cfg.Tuning.NoCompounds {
		compounds = ix.compounds(q.Text, s)
	}
	var dates []dateTerm
	if !ix.cfg.Tuning.NoDates {
		dates = dateTerms(q.Text, s)
	}
	alpha := ix.cfg.Tuning.ContextWeight
	// own is a turn's score by its own words; memoised, since with the
	// context rule each turn is scored as itself and as a reply's context.
	var memo []float64 // by entry.ord; NaN until scored
	if alpha > 0 {
		memo = make([]float64, s.ords)
		for i := range memo {
			memo[i] = math.NaN()
		}
	}
	own := func(e *entry) float64 {
		if e.ord < len(memo) && !math.IsNaN(memo[e.ord]) {
			return memo[e.ord]
		}
		sc := s.stats.score(qids, idfs, e.terms) + s.stats.dateScore(dates, e.doc.CreatedAt, len(e.terms))
		if e.ord < len(memo) {
			memo[e.ord] = sc
		}
		return sc
	}
	lexScore := func(e *entry) float64 {
		sc := own(e)
		if alpha > 0 && e.prev != nil {
			sc = max(sc, alpha*own(e.prev))
		}
		return sc + compoundBonus(compounds, e)
	}

	var lexList, vecList []scored
	var lexErr, vecErr error
	if o.Mode != ModeVector {
		lexList, lexErr = ix.lexicalChannel(s, q.Text, thread, restricted, slack, allowed, pool, len(qterms) > 0 || len(dates) > 0, lexScore)
		res.Retrieval.Lexical = status(lexErr)
	}
	var qvec []float32
	if o.Mode != ModeLexical {
		res.Retrieval.Embedder = ix.emb.ID()
		if qErr != nil {
			vecErr = qErr
		} else {
			qvec, vecList, vecErr = ix.vectorChannel(ctx, s, qv, thread, restricted, slack, allowed, pool, o.Threshold)
		}
		res.Retrieval.Vector = status(vecErr)
		if vecErr == nil {
			res.Retrieval.Vector = vectorStatus(s)
		}
	}
	if lexErr != nil && vecErr != nil {
		return nil, fmt.Errorf("recall: both channels failed: lexical: %v; vector: %w", lexErr, vecErr)
	}

	cands := ix.candidates(ctx, s, lexList, vecList, o, qvec, lexScore, lexErr == nil && o.Mode != ModeVector && !ix.cfg.Tuning.BleveScores)
	var fused []float64
	switch {
	case o.Mode == ModeLexical || (o.Mode == ModeHybrid && vecErr != nil):
		fused = channelScores(cands, true)
	case o.Mode == ModeVector || lexErr != nil:
		fused = channelScores(cands, false)
	case o.Fusion == FusionRRF:
		fused = FuseRRF(cands, RRFK)
	case ix.cfg.Tuning.MaxNorm:
		fused = FuseWeightedMax(cands, ix.cfg.Tuning.VectorWeight)
	default:
		fused = FuseWeighted(cands, ix.cfg.Tuning.VectorWeight)
	}
	order := rankFused(cands, fused)
	hits := make([]Hit, 0, o.TopK)
	for _, i := range order {
		if len(hits) == o.TopK {
			break
		}
		c := cands[i]
		if o.Mode == ModeLexical && c.LexRank == 0 || o.Mode == ModeVector && c.VecRank == 0 {
			continue
		}
		e := s.docs[c.ID]
		hits = append(hits, Hit{
			MessageID: c.ID, ThreadID: e.doc.ThreadID, Seq: e.doc.Seq, Role: e.doc.Role, CreatedAt: e.doc.CreatedAt,
			Score: fused[i], Lexical: c.Lexical, Vector: c.Vector, Reason: ReasonHit, Rank: len(hits) + 1,
		})
	}
	res.Hits, err = ExpandRange(hits, o.MessageRange, func(th string, from, to int64) ([]Hit, error) {
		var out []Hit
		for _, e := range s.neighbours(th, from, to) {
			if q.Exclude[e.doc.ID] {
				continue
			}
			out = append(out, Hit{MessageID: e.doc.ID, ThreadID: e.doc.ThreadID, Seq: e.doc.Seq, Role: e.doc.Role, CreatedAt: e.doc.CreatedAt})
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	res.Retrieval.apply(q.Backlog)
	return res, nil
}

// vectorStatus is the vector channel's status after a successful search
// (caller holds s.mu): "ok", or "degraded: …" while messages are not
// embedded, naming the damaged stored embeddings being embedded again.
func vectorStatus(s *shard) string {
	missing := len(s.docs) - s.col.Count()
	if missing <= 0 {
		return "ok"
	}
	if n := len(s.damaged); n > 0 {
		return fmt.Sprintf("degraded: %d of %d messages not embedded yet (%d stored embeddings damaged, being embedded again)", missing, len(s.docs), n)
	}
	return fmt.Sprintf("degraded: %d of %d messages not embedded yet", missing, len(s.docs))
}

type scored struct {
	id    string
	score float64
}

// lexicalChannel returns up to pool allowed candidates ranked by textbook
// BM25 (or bleve's BM25 with Config.BleveScores). slack >= 0 says that at
// most slack candidates are not allowed (no filter, see Search).
func (ix *Index) lexicalChannel(s *shard, text, thread string, restricted bool, slack int, allowed func(*entry) bool, pool int, hasTerms bool, score func(*entry) float64) ([]scored, error) {
	if !hasTerms {
		return nil, nil
	}
	if depth := ix.cfg.Tuning.RescoreDepth; !ix.cfg.Tuning.BleveScores && !ix.cfg.Tuning.BleveMatches &&
		(len(s.docs) <= depth || slack >= 0 && len(s.docs) <= inMemoryFactor*depth) {
		// When the query matches at most RescoreDepth messages, every
		// match is re-scored with the textbook BM25 (below), and the shard
		// holds every message's analysed terms: a message matches exactly
		// when its score is positive (the same analyser and OR of
		// terms as bleve's match query), so the matches are enumerated
		// here instead of by bleve searches whose cost grows with the
		// whole index (3.5 ms of lexical search at 1M messages,
		// BENCHMARKS.md). matched counts what bleve's total would (the
		// scope's matches; without a filter the exclusion is not part of
		// the bleve query); beyond RescoreDepth bleve's top pool is used,
		// as before. Same results: TestLexicalInMemory.
		var out []scored
		matched := 0
		for id, e := range s.docs {
			if thread != "" && e.doc.ThreadID != thread {
				continue
			}
			sc := score(e)
			if sc <= 0 {
				continue
			}
			matched++
			if allowed(e) {
				out = append(out, scored{id, sc})
			}
		}
		if len(s.docs) <= depth || matched <= depth {
			sortScored(out)
			if len(out) > pool {
				out = out[:pool]
			}
			return out, nil
		}
	}
	lq := lexQuery{Text: text, Resource: s.resource, Thread: thread, Size: pool + max(slack, 0)}
	if restricted && slack < 0 {
		// The allowed turns and the turns before them: a reply matches
		// through the turn before (addReplies), which may be filtered out.
		var ids []string
		listed := map[string]bool{}
		for _, e := range s.docs {
			if !allowed(e) {
				continue
			}
			for _, x := range []*entry{e, e.prev} {
				if x != nil && !listed[x.doc.ID] {
					listed[x.doc.ID] = true
					ids = append(ids, x.doc.ID)
				}
			}
			if len(ids) > directIDLimit {
				ids = nil
				break
			}
		}
		if ids != nil {
			if len(ids) == 0 {
				return nil, nil
			}
			lq.IDs = ids
		}
	}
	hits, total, err := ix.cfg.Lexical.search(lq)
	if err != nil {
		return nil, err
	}
	if !ix.cfg.Tuning.BleveScores && total > len(hits) && total <= ix.cfg.Tuning.RescoreDepth {
		// bleve ranks with its approximate BM25, which depends on the
		// segment layout: when the query matches at most RescoreDepth
		// messages, re-score them all, so the textbook ranking is exact
		// and stable across merges.
		lq.Size = total
		if hits, total, err = ix.cfg.Lexical.search(lq); err != nil {
			return nil, err
		}
	}
	keep := func(hs []lexHit) []scored {
		out := make([]scored, 0, len(hs))
		for _, h := range hs {
			if e := s.docs[h.ID]; allowed(e) {
				sc := h.Score
				if !ix.cfg.Tuning.BleveScores {
					sc = score(e)
				}
				out = append(out, scored{h.ID, sc})
			}
		}
		return out
	}
	out := keep(hits)
	if slack < 0 && len(out) < pool && total > len(hits) {
		// The filter removed candidates: widen to every match so that the
		// topK among the allowed messages is exact.
		lq.Size = total
		if hits, _, err = ix.cfg.Lexical.search(lq); err != nil {
			return nil, err
		}
		out = keep(hits)
	}
	if !ix.cfg.Tuning.BleveScores {
		// bleve matched the turns by their own words; their replies
		// match through them (score applies the context rule).
		ranked := make([]scored, len(hits))
		for i, h := range hits {
			ranked[i] = scored{h.ID, h.Score}
		}
		out = ix.addReplies(s, out, ranked, allowed, func(e *entry) (float64, bool) {
			sc := score(e)
			return sc, sc > 0
		})
	}
	sortScored(out)
	if len(out) > pool {
		out = out[:pool]
	}
	return out, nil
}

// vectorChannel returns up to pool allowed candidates at or above the
// threshold, ranked by cosine similarity to the query vector qv. slack as
// in lexicalChannel.
func (ix *Index) vectorChannel(ctx context.Context, s *shard, qv []float32, thread string, restricted bool, slack int, allowed func(*entry) bool, pool int, threshold float64) ([]float32, []scored, error) {
	count := s.col.Count()
	if count == 0 {
		return qv, nil, nil
	}
	rank := func(n int) ([]scored, error) { return ix.vectorRank(ctx, s, qv, thread, n) }
	if !ix.cfg.Tuning.ExactVectors && s.vx != nil {
		rank = ix.indexRank(s, qv, thread, slack, allowed)
	}
	n := min(pool+max(slack, 0), count)
	for {
		rs, err := rank(n)
		if err != nil {
			return qv, nil, fmt.Errorf("vector search: %w", err)
		}
		out := make([]scored, 0, len(rs))
		ranked := make([]scored, 0, len(rs))
		below := false
		for _, r := range rs {
			if threshold != 0 && r.score < threshold {
				below = true
				break
			}
			ranked = append(ranked, r)
			if !restricted || allowed(s.docs[r.id]) {
				out = append(out, r)
			}
		}
		if slack >= 0 || len(out) >= pool || below || n == count || len(rs) < n {
			ix.contextScores(s, out, ranked)
			out = ix.addReplies(s, out, ranked, func(e *entry) bool { return !restricted || allowed(e) }, func(e *entry) (float64, bool) {
				sim, ok := ix.similarity(ctx, s, e, qv)
				return sim, ok && (threshold == 0 || sim >= threshold)
			})
			if len(out) > pool {
				out = out[:pool]
			}
			return qv, out, nil
		}
		n = min(4*n, count) // widen: the filter removed candidates
	}
}

// vectorRank returns the n vectors of the scope most similar to qv by
// chromem-go's exact scan of the collection (Tuning.ExactVectors).
func (ix *Index) vectorRank(ctx context.Context, s *shard, qv []float32, thread string, n int) ([]scored, error) {
	var where map[string]string
	if thread != "" {
		where = map[string]string{"thread": thread}
	}
	rs, err := s.col.QueryEmbedding(ctx, qv, n, where, nil)
	if err != nil {
		return nil, err
	}
	out := make([]scored, len(rs))
	for i, r := range rs {
		out[i] = scored{r.ID, float64(r.Similarity)}
	}
	return out, nil
}

// indexRank returns the ranking function of the shard's vector index. With
// a filter (slack < 0) it pre-filters: only the allowed turns and the turns
// before them (which lift their replies, contextScores) are ranked, so the
// filter never empties the pool; the thread scope likewise.
func (ix *Index) indexRank(s *shard, qv []float32, thread string, slack int, allowed func(*entry) bool) func(int) ([]scored, error) {
	var keep func(*entry) bool
	switch {
	case slack < 0:
		mark := make([]bool, s.ords)
		for _, e := range s.vx.ents {
			if allowed(e) {
				mark[e.ord] = true
				if e.prev != nil {
					mark[e.prev.ord] = true
				}
			}
		}
		keep = func(e *entry) bool { return mark[e.ord] }
	case thread != "":
		keep = func(e *entry) bool { return e.doc.ThreadID == thread }
	}
	q := normalised(qv)
	return func(n int) ([]scored, error) { return s.vx.search(q, n, keep), nil }
}

// candidates merges the channel lists and gives every candidate both
// scores: the exact BM25 of a vector candidate and the cosine of a lexical
// candidate (when it has a vector at or above the threshold).
func (ix *Index) candidates(ctx context.Context, s *shard, lex, vec []scored, o Options, qv []float32, lexScore func(*entry) float64, lexOK bool) []Candidate {
	byID := map[string]int{}
	var cands []Candidate
	get := func(id string) *Candidate {
		if i, ok := byID[id]; ok {
			return &cands[i]
		}
		byID[id] = len(cands)
		cands = append(cands, Candidate{ID: id})
		return &cands[len(cands)-1]
	}
	for i, sc := range lex {
		c := get(sc.id)
		c.Lexical, c.LexRank = ptr(sc.score), i+1
	}
	for i, sc := range vec {
		c := get(sc.id)
		c.Vector, c.VecRank = ptr(sc.score), i+1
	}
	if o.Mode != ModeHybrid {
		return cands
	}
	for i := range cands {
		c := &cands[i]
		if c.Lexical == nil && lexOK {
			if sc := lexScore(s.docs[c.ID]); sc > 0 {
				c.Lexical = ptr(sc)
			}
		}
		if c.Vector == nil && qv != nil {
			if sim, ok := ix.similarity(ctx, s, s.docs[c.ID], qv); ok && (o.Threshold == 0 || sim >= o.Threshold) {
				c.Vector = ptr(sim)
			}
		}
	}
	return cands
}

// channelScores returns one channel's scores as the fused scores.
func channelScores(cands []Candidate, lexical bool) []float64 {
	out := make([]float64, len(cands))
	for i, c := range cands {
		p := c.Vector
		if lexical {
			p = c.Lexical
		}
		if p != nil {
			out[i] = *p
		} else {
			out[i] = math.Inf(-1)
		}
	}
	return out
}

func sortScored(s []scored) {
	slices.SortStableFunc(s, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if a.id < b.id {
			return -1
		}
		if a.id > b.id {
			return 1
		}
		return 0
	})
}

func ptr(f float64) *float64 { return &f }

// embedQuery returns the query's vector.
func (ix *Index) embedQuery(ctx context.Context, text string) ([]float32, error) {
	vs, err := ix.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vs) != 1 || len(vs[0]) != ix.emb.Dims() {
		return nil, fmt.Errorf("%w: query embedding", ErrDimension)
	}
	return vs[0], nil
}
