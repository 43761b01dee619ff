package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// A search (Index.Search): resolve the options, embed the query, run the
// channels over the resource's shard (channel_lexical.go,
// channel_vector.go), merge and fuse their candidates (fusion.go), keep
// topK and expand each hit's range (range.go).

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
	// At is when the question is asked: the query's relative dates
	// ("yesterday", "last week", "two months ago") are resolved against it
	// in whole days of the resource's zone (Config.Location) and
	// then scored like the dates it names.
	// Zero resolves none (a library caller that knows no time; the engine
	// passes its clock). Ignored with Tuning.NoDates.
	At time.Time
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

// search is Search, unguarded (snapshot_fault.go).
func (ix *Index) search(ctx context.Context, q Query) (*Result, error) {
	p, err := q.Prepare()
	if err != nil {
		return nil, err
	}
	o, thread, filter := p.Options, p.Thread, p.Filter
	// Embed the query before taking the resource's lock: a remote embedder
	// may be slow, and writers must not wait behind it.
	var qv []float32
	var qErr error
	if o.Mode != ModeLexical {
		qv, qErr = ix.embedQuery(ctx, q.Text)
	}
	loadMark("embed query")
	s, err := ix.lockedShardFor(ctx, q.ResourceID, qv)
	if err != nil {
		return nil, err
	}
	loadMark("shard locked")
	defer s.mu.RUnlock()
	scr := getSearchScratch()
	defer scr.release() // after runChannels waited for the lexical goroutine

	cq := ix.channelQuery(s, q, o, thread, filter)
	cq.ctx = ctx
	cq.scr = scr
	// The fusion cross-scores the vector candidates from the lexical
	// channel's own scores (lexScoring.keepOwn).
	cq.keepOwn = o.Mode == ModeHybrid
	defer cq.lex.release()
	if m := cq.lex.memo; m != nil && m.large {
		m.sparse = scr.memo
	}
	cq.qv = qv
	if qv != nil && s.vx.len() > 0 {
		cq.vq = s.vx.query(qv)
		// The neighbours' bounds come from the first pass (firstBound).
		cq.vq.keepFirst = true
		defer cq.vq.release()
	}
	res := &Result{Retrieval: Off()}
	ch, err := ix.runChannels(ctx, cq, o.Mode, qErr, &res.Retrieval)
	if err != nil {
		return nil, err
	}
	loadMark("search: channels")
	r := &Ranking{Options: o, Thread: thread, Query: q.Text, Dates: cq.lex.periods(), Tuning: ix.cfg.Tuning, QueryVector: qv != nil}
	hits := rankHits(newShardCorpus(ctx, ix, cq, q.Exclude, ch), ch, r, scr)
	loadMark("search: rank")
	s.searched() // the check of a freshly loaded vector part may start (snapshot_verify.go)
	if res.Hits, err = expandRange(hits, o.MessageRange, s.neighbourHits(q.Exclude)); err != nil {
		return nil, err
	}
	t := ix.cfg.Tuning
	lexShard := !t.BleveScores && !t.BleveMatches && !s.post.overflow // lexicalChannel's choice
	res.Retrieval.apply(q.Backlog.heldBy(s, lexShard, q.Exclude))
	loadMark("search: ranges")
	return res, nil
}

// Prepared is a query checked the way Search checks it: its options
// resolved (Options.Resolve), the thread a scope-thread search is confined
// to ("" for the resource) and its parsed filter (nil for none).
type Prepared struct {
	// Options are the query's options, resolved (Options.Resolve).
	Options Options
	// Thread is the thread a scope-thread search is confined to; "" for the resource.
	Thread string
	// Filter is the parsed filter; nil for none.
	Filter *Filter
}

// Prepare checks q as Search does before it searches: ErrInvalidOptions or
// a *FilterError for bad options, ErrInvalidQuery when the resource (or,
// with scope thread, the thread) is missing. Another backend's searcher
// starts with it, so that both refuse the same queries alike.
func (q Query) Prepare() (Prepared, error) {
	o, err := q.Options.Resolve()
	if err != nil {
		return Prepared{}, err
	}
	thread, err := q.thread(o.Scope)
	if err != nil {
		return Prepared{}, err
	}
	filter, err := ParseFilter(o.Filter)
	if err != nil {
		return Prepared{}, err
	}
	return Prepared{Options: o, Thread: thread, Filter: filter}, nil
}

// thread returns the thread a search of scope is confined to ("" for the
// resource), or a *QueryError (ErrInvalidQuery) naming the field when the
// query lacks the resource or, with scope thread, the thread.
func (q *Query) thread(scope Scope) (string, error) {
	if q.ResourceID == "" {
		return "", &QueryError{Field: "ResourceID", Rule: "no resource"}
	}
	if scope != ScopeThread {
		return "", nil
	}
	if q.ThreadID == "" {
		return "", &QueryError{Field: "ThreadID", Rule: "scope thread needs a thread"}
	}
	return q.ThreadID, nil
}

// channelQuery is what both channels need of one search: the resource's
// read-locked shard and the scope, the exclusion and the filter as one
// predicate, the candidate pool, the exact lexical score and the query
// vector.
type channelQuery struct {
	// ctx is the search's (context.Background() as channelQuery makes
	// it): both channels return its error when it ends (lexicalPostings,
	// bleve's collector, the vector index's scans).
	ctx    context.Context
	s      *shard
	text   string // the query text
	thread string // the thread of scope thread; "" for the whole resource
	// allowed says whether a message may be returned (scope, exclusion,
	// filter); restricted is false when it only checks the scope.
	allowed    func(*entry) bool
	restricted bool
	// slack is how many of a channel's top results the exclusion can
	// remove. Without a filter, asking each channel for pool+slack results
	// is exact and never needs widening; before, LoadContext's recent
	// window widened every lexical search to all its matches and every
	// vector search to the whole collection (BENCHMARKS.md). -1: a filter
	// applies, widen when it removed candidates.
	slack int
	pool  int // candidates each channel returns: max(CandidatePool, TopK)
	// lexScore is a message's exact lexical score (lexScorer); hasTerms
	// says whether the query has analysed or date terms at all.
	lexScore  func(*entry) float64
	hasTerms  bool
	lex       *lexScoring // the scoring behind lexScore (lexicalPostings)
	qv        []float32   // the query's vector; nil in lexical mode or when embedding failed
	vq        *vecQuery   // qv's exact cosines with the shard's rows (vecexact.go); nil without qv or vectors
	threshold float64     // Options.Threshold
	// scr is the search's reused memory (searchScratch); nil: allocate.
	scr *searchScratch
	// keepOwn has the lexical channel over the shard's postings leave its
	// own scores to lex (lexScoring.keepOwn) instead of releasing them;
	// whoever sets it calls lex.release.
	keepOwn bool
}

// channelQuery builds the channels' query over the read-locked shard s.
func (ix *Index) channelQuery(s *shard, q Query, o Options, thread string, filter *Filter) *channelQuery {
	ex := excludedOrds(s, q.Exclude)
	excluded := func(e *entry) bool { return q.Exclude[e.doc.ID] }
	if ex.byOrd {
		excluded = func(e *entry) bool { return ex.mask>>(e.ord&63)&1 != 0 && slices.Contains(ex.ords, e.ord) }
	}
	cq := &channelQuery{
		ctx: context.Background(), s: s, text: q.Text, thread: thread, threshold: o.Threshold,
		allowed: func(e *entry) bool {
			return e != nil && (thread == "" || e.doc.ThreadID == thread) && !excluded(e) && filter.Match(&e.doc)
		},
		restricted: filter != nil || len(q.Exclude) > 0,
		pool:       max(ix.cfg.Tuning.CandidatePool, o.TopK),
		slack:      -1,
	}
	if filter == nil {
		cq.slack = ex.found
		if !ex.byOrd {
			for id := range q.Exclude {
				if s.docs.get(id) != nil {
					cq.slack++
				}
			}
		}
	}
	cq.lex = ix.lexScorer(s, q.Text, q.At)
	cq.lexScore, cq.hasTerms = cq.lex.score, cq.lex.has
	return cq
}

// exclusionByOrd is the size of an exclusion up to which a search checks
// it by the excluded entries' ords (excludedOrds) instead of the ids' map.
// LoadContext excludes its recent window (10 ids by default), and both
// channels ask whether a candidate is allowed a few thousand times a
// search at 100k messages: hashing the id each time was ~0.04 ms of a
// search (issue 14, BENCHMARKS.md "flat8").
const exclusionByOrd = 32

// exclusion is a search's exclusion resolved in its shard: with byOrd, the
// ords of the excluded ids (those mapped to true) that are messages of the
// shard, one entry per message, so an entry is excluded exactly when its
// ord is listed, and found, how many of the ids are messages of the shard
// (channelQuery's slack); without byOrd, the ids' map is looked up and
// found is not counted.
type exclusion struct {
	byOrd bool
	ords  []int
	mask  uint64 // bit ord%64 of each of ords: most ords are not listed
	found int
}

// excludedOrds resolves ex in s (caller holds its lock) when it has at
// most exclusionByOrd ids.
func excludedOrds(s *shard, ex map[string]bool) exclusion {
	if len(ex) == 0 || len(ex) > exclusionByOrd {
		return exclusion{}
	}
	x := exclusion{byOrd: true, ords: make([]int, 0, len(ex))}
	for id, on := range ex {
		if e := s.docs.get(id); e != nil {
			x.found++ // counted as before, whatever the id maps to (slack)
			if on {
				x.ords = append(x.ords, e.ord)
				x.mask |= 1 << (e.ord & 63)
			}
		}
	}
	return x
}

// channels holds what the two channels answered.
type channels struct {
	lex, vec       []scored
	lexErr, vecErr error
}

// concurrentMin is the size of a resource (messages) from which a hybrid
// search runs its two channels concurrently: each then costs milliseconds
// (bleve's postings, the scan of the codes; BENCHMARKS.md), while below it
// they take a fraction of one and a goroutine would only add scheduling.
var concurrentMin = 4096

// runChannels runs the channels of mode and records their status in r;
// qErr is the query embedding's failure. It fails only when both failed.
// In a large resource the lexical channel runs in its own goroutine while
// this one runs the vector channel (they share only the read-locked shard
// and read-only query state); a panic there is raised again here.
func (ix *Index) runChannels(ctx context.Context, q *channelQuery, mode Mode, qErr error, r *Retrieval) (*channels, error) {
	ch := &channels{}
	var wait func() // the lexical goroutine's, until waited for
	defer func() {
		if wait != nil {
			// The vector channel panicked: the shard stays read-locked
			// until the lexical goroutine is done with it.
			wait()
		}
	}()
	if mode != ModeVector {
		lexical := func() { ch.lex, ch.lexErr = ix.lexicalChannel(q) }
		if mode == ModeHybrid && qErr == nil && q.hasTerms && q.s.docs.len() >= concurrentMin {
			wait = goCatch(lexical)
		} else {
			lexical()
		}
	}
	if mode != ModeLexical {
		r.Embedder = ix.emb.ID()
		if qErr != nil {
			ch.vecErr = qErr
		} else {
			ch.vec, ch.vecErr = ix.vectorChannel(ctx, q)
		}
		r.Vector = status(ch.vecErr)
		if ch.vecErr == nil {
			r.Vector = vectorStatus(q.s)
		}
	}
	if wait != nil {
		w := wait
		wait = nil
		w()
	}
	if err := ctx.Err(); err != nil && (errors.Is(ch.lexErr, err) || errors.Is(ch.vecErr, err)) {
		// Cut off by the caller, not an outage to degrade around.
		return nil, fmt.Errorf("recall: search: %w", err)
	}
	if mode != ModeVector {
		r.Lexical = status(ch.lexErr)
	}
	if ch.lexErr != nil && ch.vecErr != nil {
		return nil, fmt.Errorf("recall: both channels failed: lexical: %v; vector: %w", ch.lexErr, ch.vecErr)
	}
	return ch, nil
}

// goCatch runs fn in a goroutine and returns the function that waits for
// it and raises again, in the caller's goroutine, a panic of fn (as if fn
// had run there: an HTTP handler's recovery still sees it).
func goCatch(fn func()) (wait func()) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		// A fault reading a snapshot mapping is a panic here too, raised
		// again in the caller, which Search recovers (snapshot_fault.go).
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		fn()
	}()
	return func() {
		if p := <-done; p != nil {
			panic(p)
		}
	}
}

// fuse returns the candidates' fused scores: one channel's own scores in a
// single-channel mode or when the other channel failed, else the fusion of
// o.Fusion.
func fuse(cands []candidate, ch *channels, o Options, t Tuning) []float64 {
	switch {
	case o.Mode == ModeLexical || (o.Mode == ModeHybrid && ch.vecErr != nil):
		return channelScores(cands, true)
	case o.Mode == ModeVector || ch.lexErr != nil:
		return channelScores(cands, false)
	case o.Fusion == FusionRRF:
		return fuseRRF(cands, rrfK)
	case t.MaxNorm:
		return fuseWeightedMax(cands, t.VectorWeight)
	default:
		return fuseWeighted(cands, t.VectorWeight)
	}
}

// topHits returns the o.TopK best candidates by fused score as hits (in a
// single-channel mode, only that channel's candidates). A hybrid search of
// the resource raises each candidate by its session's evidence
// (session.go); the single-channel modes keep their channel's own order,
// which a filter or an exclusion leaves exact (TestSearchFilterOracle,
// TestExcludeExact), as the fusion already does not.
func topHits(c Corpus, cands []candidate, ch *channels, r *Ranking) []Hit {
	o := r.Options
	fused := fuse(cands, ch, o, r.Tuning)
	if r.Thread == "" && o.Mode == ModeHybrid {
		sessionEvidence(c, cands, fused, r.Tuning.SessionWeight)
		sessionTopic(c, cands, fused, r.QueryVector, r.Tuning.TopicWeight)
	}
	if o.Mode == ModeHybrid {
		speakerBoost(c, cands, fused, r.Query, r.Tuning.SpeakerWeight)
		dateFocus(c, cands, fused, r.Dates, r.Tuning.DateWeight)
		exchangeOrder(c, cands, fused, r.Query, r.Tuning.NoExchangeOrder)
	}
	hits := make([]Hit, 0, o.TopK)
	for _, i := range rankFused(cands, fused) {
		if len(hits) == o.TopK {
			break
		}
		cd := cands[i]
		if o.Mode == ModeLexical && cd.LexRank == 0 || o.Mode == ModeVector && cd.VecRank == 0 {
			continue
		}
		d := c.Doc(cd.ID)
		hits = append(hits, Hit{
			MessageID: hitID(cd.ID), ThreadID: d.ThreadID, Seq: d.Seq, Role: d.Role, CreatedAt: d.CreatedAt,
			Score: fused[i], Lexical: clonePtr(cd.Lexical), Vector: clonePtr(cd.Vector), Reason: ReasonHit, Rank: len(hits) + 1,
		})
	}
	return hits
}

// neighbourHits is range expansion's lookup over the shard (read-locked):
// the messages of a thread within a seq range, except the excluded ones.
func (s *shard) neighbourHits(exclude map[string]bool) neighbourFunc {
	return func(th string, from, to int64) ([]Hit, error) {
		var out []Hit
		for _, e := range s.neighbours(th, from, to) {
			if exclude[e.doc.ID] {
				continue
			}
			out = append(out, Hit{MessageID: hitID(e.doc.ID), ThreadID: e.doc.ThreadID, Seq: e.doc.Seq, Role: e.doc.Role, CreatedAt: e.doc.CreatedAt})
		}
		return out, nil
	}
}

type scored struct {
	id    string
	score float64
	// e is the entry of id in the searched shard when the channel that
	// listed it had it at hand (nil: find it by id, scored.entry); a
	// lookup by id in a shard read from a snapshot is a binary search
	// over the mapped ids (shard_docs.go).
	e *entry
}

// entry returns r's entry in s (caller holds s.mu), nil when s has none.
func (r scored) entry(s *shard) *entry {
	if r.e != nil {
		return r.e
	}
	return s.docs.get(r.id)
}

// candidates merges the channel lists and, in hybrid mode, gives every
// candidate both scores: the exact BM25 of a vector candidate (when the
// lexical channel answered with the textbook scores; none when it is 0)
// and the cosine of a lexical candidate (none when neither it nor its
// neighbours have a vector yet). A lexical candidate's cosine under
// Options.Threshold is its VectorUnder: the weighted fusion weighs it
// (vectorColumn), no hit shows it. It counted the lowest cosine of the
// vector candidates (at or above the threshold) before, which gave a lone
// vector hit no credit.
func candidates(c Corpus, ch *channels, r *Ranking, scr *searchScratch) []candidate {
	n := len(ch.lex) + len(ch.vec)
	byID := scratchMap(scr, func(sc *searchScratch) map[string]int { return sc.byID }, n)
	var cands []candidate
	var vals []float64 // the scores cands point to, never moved: 2 a candidate at most
	if scr != nil {
		cands, vals = scr.cands[:0], scr.vals[:0]
	}
	if cap(cands) < n {
		cands = make([]candidate, 0, n)
	}
	if cap(vals) < 2*n {
		vals = make([]float64, 0, 2*n)
	}
	if scr != nil {
		defer func() { scr.cands, scr.vals = cands, vals }()
	}
	ptr := func(f float64) *float64 {
		vals = append(vals, f)
		return &vals[len(vals)-1]
	}
	get := func(id string) *candidate {
		if i, ok := byID[id]; ok {
			return &cands[i]
		}
		byID[id] = len(cands)
		cands = append(cands, candidate{ID: id})
		return &cands[len(cands)-1]
	}
	for i, sc := range ch.lex {
		cd := get(sc.id)
		cd.Lexical, cd.LexRank = ptr(sc.score), i+1
	}
	for i, sc := range ch.vec {
		cd := get(sc.id)
		cd.Vector, cd.VecRank = ptr(sc.score), i+1
	}
	if r.Options.Mode != ModeHybrid {
		return cands
	}
	lexOK := ch.lexErr == nil && !r.Tuning.BleveScores
	threshold := r.Options.Threshold
	for i := range cands {
		cd := &cands[i]
		if cd.Lexical == nil && lexOK {
			if sc := c.LexicalScore(cd.ID); sc > 0 {
				cd.Lexical = ptr(sc)
			}
		}
		if cd.Vector == nil && r.QueryVector {
			if sim, ok := c.Similarity(cd.ID); ok && (threshold == 0 || sim >= threshold) {
				cd.Vector = ptr(sim)
			} else if ok {
				cd.VectorUnder = ptr(sim)
			}
		}
	}
	return cands
}

// channelScores returns one channel's scores as the fused scores.
func channelScores(cands []candidate, lexical bool) []float64 {
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

// clonePtr returns a new pointer to *p (nil for nil): a hit keeps no
// pointer into the search's scratch (candidates).
func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	return ptr(*p)
}

// firstN returns the first n of s (all of s when shorter).
func firstN(s []scored, n int) []scored {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// embedQuery returns the query's vector, waiting for it at most
// Config.QueryEmbedTimeout (EmbedQuery).
func (ix *Index) embedQuery(ctx context.Context, text string) ([]float32, error) {
	return EmbedQuery(ctx, ix.emb, text, ix.cfg.QueryEmbedTimeout)
}

// hitID returns a copy of id for a hit: a message id read from a snapshot
// lies in the shard's mapping (readIDs), which a hit outlives (the shard
// may be unloaded, its file unmapped, while the caller holds the result).
func hitID(id string) string { return strings.Clone(id) }
