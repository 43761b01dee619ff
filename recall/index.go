package recall

// This file holds the Index's configuration and its life cycle; the shard
// cache is in shard_cache.go, writes in write.go, searches in search.go
// and the two channels in channel_lexical.go and channel_vector.go.

import (
	"context"
	"fmt"
	"sync"
	"time"
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
	// about as good on both dev sets, docs/recall.md).
	DefaultContextWeight = 0.5
	// directIDLimit: when the filter leaves at most this many messages, the
	// lexical channel searches exactly those ids (a bleve DocIDQuery)
	// instead of widening its candidate pool.
	directIDLimit = 2048
)

// DefaultVectorWeight returns the weight w of the vector channel in the
// weighted fusion for an embedder, chosen on the LoCoMo and LongMemEval dev
// sets (docs/recall.md).
//
// 0.15 for hash-384, whose similarity is lexical-level and so mostly
// repeats BM25: swept from 0.05 to 0.3, 0.15 is where hybrid matches or
// beats lexical on every LoCoMo metric and on LongMemEval's recall metrics.
//
// 0.5 for every other embedder (semantic models). With use-lite the two
// dev sets pull apart: BM25 is far stronger on LoCoMo (best w ≈ 0.3) and
// the vector channel stronger on LongMemEval (best w ≈ 0.7); 0.5 loses
// least on both, and on synthetic rankings it stays within a few points of
// a strong vector channel as long as BM25 carries some signal (a test of
// the fusion, docs/recall.md).
func DefaultVectorWeight(embedderID string) float64 {
	if embedderID == HashID {
		return 0.15
	}
	return 0.5
}

// DefaultSessionWeight returns Tuning.SessionWeight's default for an
// embedder (docs/recall.md), measured on the LoCoMo and
// LongMemEval dev sets over the turn-context rule.
//
// 0.15 for semantic embedders: with use-lite it gains turn recall_any on
// both sets at every k and loses none; 0.3 gains more on LoCoMo (@5 0.683
// → 0.704) but loses a LongMemEval question at @5.
//
// None (−1) for hash-384, whose hybrid is BM25 with a lexical-level
// second opinion: there the rule gains on LoCoMo (@5 0.657 → 0.682) but
// loses on LongMemEval (@5 0.800 → 0.767, recall_all@5 0.600 → 0.533,
// below lexical alone), so it does not help both sets.
func DefaultSessionWeight(embedderID string) float64 {
	if embedderID == HashID {
		return -1
	}
	return 0.15
}

// DefaultTopicWeight returns Tuning.TopicWeight's default for an embedder
// (docs/recall.md), measured on the LoCoMo and LongMemEval
// dev sets over the turn-context and session-evidence rules.
//
// 0.15 for semantic embedders: with use-lite, LoCoMo turn recall_any@5
// 0.683 → 0.693 (@10 0.800, unchanged; @1 0.371 → 0.370) and LongMemEval
// session recall_any@5 0.967 → 1.000 (turn recall_any unchanged); 0.3
// loses a LongMemEval turn question at @5.
//
// None (−1) for hash-384, whose centroids are bags of hashed words: there
// it gains on LoCoMo (@5 0.657 → 0.663) but loses on LongMemEval (turn @5
// 0.800 → 0.767), as the session-evidence rule does.
func DefaultTopicWeight(embedderID string) float64 {
	if embedderID == HashID {
		return -1
	}
	return 0.15
}

// DefaultSpeakerWeight is Tuning.SpeakerWeight's default, for
// every embedder: a turn of the speaker a question names outranks another
// turn unless that one's fused score is 2 standard deviations higher,
// nearly a partition (on the LoCoMo dev set 97 % of the questions naming
// one participant have an evidence turn said by them), leaving a clear
// outlier its place. Measured (docs/recall.md), LoCoMo turn
// recall_any@1/5/10, use-lite 0.382/0.700/0.804 → 0.432/0.746/0.830,
// hash-384 0.386/0.663/0.758 → 0.411/0.691/0.792; δ = 1 gains about half
// as much, 4 no more (use-lite @10 0.828). LongMemEval's questions name
// no one but the assistant ("the move you made"): use-lite turn
// recall_any@5 0.900 → 0.933, hash-384 unchanged.
const DefaultSpeakerWeight = 2.0

// DefaultDateWeight is Tuning.DateWeight's default, for
// every embedder: a turn carrying a date the question names outranks
// another unless that one's fused score is 2 standard deviations higher,
// the speaker rule's weight for the same reason (nearly a partition: 75
// of the 85 LoCoMo dev questions naming a date have every evidence turn
// said then). Measured (docs/recall.md), turn recall_any@1/5/10:
// LoCoMo use-lite 0.459/0.775/0.842 → 0.467/0.783/0.851, hash-384
// 0.416/0.705/0.804 → 0.425/0.711/0.807; LongMemEval @1 use-lite 0.667
// → 0.700, hash-384 0.600 → 0.633.
const DefaultDateWeight = 2.0

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
	// its messages whose stored embedding had the wrong length or a NaN or ±Inf value (they were
	// skipped: the resource loads and searches without them). The engine
	// deletes those rows and queues the messages for embedding again. It
	// is called on the searching goroutine, with no lock of the Index held.
	Damaged func(ctx context.Context, resourceID string, messageIDs []string)
	// SnapshotDropped, when set, is called when a resource's snapshot was
	// refused as it loaded (its checksum, format version, another
	// resource's, embedder's, analyser's, rules' or zone's file, damage:
	// it is deleted and the shard built from the Source), or a loaded
	// resource's shard was dropped because its snapshot file changed in
	// place under its mapping or its vector part failed
	// the background check (the next use builds it from
	// the Source), with a description of the kind of refusal that holds
	// none of the file's contents. It must not call the Index.
	SnapshotDropped func(resourceID, detail string)
	// Location, when set, gives a resource's time zone: the days and months
	// of the dates a query names ("May 3, 2023", "in March"), of a
	// message's creation, and of the relative dates of both ("yesterday"
	// said or asked at 23:30 in Los Angeles is the day before that local
	// date) are those of the zone. Nil, or a nil result, means UTC. It is
	// called when a resource's shard is created, so it must be cheap and
	// safe for concurrent use; a resource's zone is fixed for the Index's
	// life. A snapshot records its zone: one written in another zone is
	// rebuilt.
	Location func(resourceID string) *time.Location
	// SnapshotDir, when set and Source implements SnapshotSource, is the
	// directory of the resources' shard snapshots: a large
	// resource's first use reads its snapshot, brought up to date from the
	// Source, instead of building it from every stored message. "" means
	// none. The Index owns the directory: it deletes files it cannot use.
	SnapshotDir string
	// QueryEmbedTimeout bounds the embedding of a search's query
	// (EmbedQuery): 0 means DefaultQueryEmbedTimeout, 5 seconds; negative,
	// no bound but the search's context. Past it the search runs without
	// the vector channel ("unavailable: …").
	QueryEmbedTimeout time.Duration
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
	// bleve's own BM25, which estimates the average field length from
	// term-dictionary sizes and so penalises long turns far harder
	// (docs/recall.md).
	BleveScores bool `json:"bleveScores,omitempty"`
	// NoCompounds turns the compound-identifier bonus off: a message
	// holding a query's identifier ("ZEPHYR-QUOTE", "INV-18880") verbatim,
	// besides its words, scores the parts' idfs once more.
	NoCompounds bool `json:"noCompounds,omitempty"`
	// RescoreDepth: with BleveMatches, when a query matches at most this
	// many messages, all of them are re-scored with the textbook BM25
	// (exact ranking), else bleve's top CandidatePool are; 0 means
	// DefaultRescoreDepth.
	RescoreDepth int `json:"rescoreDepth,omitempty"`
	// BleveMatches makes bleve enumerate the lexical matches (its top
	// matches by its own BM25 past RescoreDepth, re-scored) instead of the
	// shard's postings, which give the exact top by the textbook BM25; it
	// exists to measure and test the two against each
	// other.
	BleveMatches bool `json:"bleveMatches,omitempty"`
	// MaxNorm normalises the channel scores by max and min–max (NormMax)
	// instead of standardising them (NormStandardise).
	MaxNorm bool `json:"maxNorm,omitempty"`
	// NoDates turns off the date terms: absolute dates the query names
	// ("in May 2022") scored as a BM25 term that the messages created then
	// carry.
	NoDates bool `json:"noDates,omitempty"`
	// NoAnswerTypes turns off the answer types: a question asking "How
	// long …?" or "When …?" scores the messages holding a duration or a
	// time expression as one more BM25 term.
	NoAnswerTypes bool `json:"noAnswerTypes,omitempty"`
	// ContextWeight α matches a turn through the turn before it: each
	// channel scores a turn max(own score, α × the previous turn's score).
	// A reply ("I went yesterday, it was so powerful") is about what the
	// turn before asked ("How was the support group?"), so a question
	// naming that finds the reply as well; α < 1 keeps a turn that matches
	// by itself above the reply that merely follows it. 0 means
	// DefaultContextWeight, negative means none.
	ContextWeight float64 `json:"contextWeight,omitempty"`
	// NoTurnAfter limits the turn-context rule to the turn before: without
	// it a turn is also matched through the turn after it (its reply), at
	// the same weight α.
	NoTurnAfter bool `json:"noTurnAfter,omitempty"`
	// NoExchange turns off the exchange rule of the vector channel: a
	// reply to a question (AnswersQuestion) scores at least the query's
	// cosine with the sum of its and the question's vectors
	// (ExchangeScore). Off with the turn-context rule.
	NoExchange bool `json:"noExchange,omitempty"`
	// NoExchangeOrder turns off the exchange order rule of the hybrid
	// fusion: of a user's turn and the agent's reply after it, both
	// candidates, the user's turn takes the better fused score, or the
	// reply when the query asks what the agent said.
	NoExchangeOrder bool `json:"noExchangeOrder,omitempty"`
	// SessionWeight β raises a hybrid candidate of a resource-wide search
	// by its session's evidence: its
	// standardised score plus β × the best positive standardised score of
	// the other candidates of its thread. 0 means
	// DefaultSessionWeight(Embedder.ID()), negative means none.
	SessionWeight float64 `json:"sessionWeight,omitempty"`
	// TopicWeight γ raises a hybrid candidate of a resource-wide search
	// by its session's topic: γ × the positive standardised cosine of the
	// query with its thread's centroid, standardised over the candidates'
	// threads. 0 means
	// DefaultTopicWeight(Embedder.ID()), negative means none.
	TopicWeight float64 `json:"topicWeight,omitempty"`
	// SpeakerWeight δ raises a hybrid candidate whose speaker (Doc.Name)
	// the query names by δ standard deviations of the fused scores. 0
	// means DefaultSpeakerWeight, negative means none.
	SpeakerWeight float64 `json:"speakerWeight,omitempty"`
	// DateWeight δ raises a hybrid candidate that carries a date the
	// query names (created in it, or its relative date pointing into it)
	// by δ standard deviations of the fused scores. 0
	// means DefaultDateWeight, negative means none; off with NoDates.
	DateWeight float64 `json:"dateWeight,omitempty"`
	// MaxLoaded bounds the messages held in memory over all loaded
	// resources (counted when a resource loads): loading one beyond it
	// unloads the least recently searched others, which load again from
	// the Source on their next search. 0 means DefaultMaxLoaded; negative
	// means no bound. The resource being loaded is never unloaded, so one
	// resource larger than the bound still loads.
	MaxLoaded int `json:"maxLoaded,omitempty"`
	// ExactVectors keeps a chromem-go collection of each loaded
	// resource's vectors and makes the vector channel scan it (exact
	// cosine, every vector per query) instead of the shard's vector index
	// (int8 codes, then the exact cosine of a candidate pool); it exists
	// to measure the two against each other (`mnemo bench`'s exactness
	// figure). Without
	// it no collection is built, which keeps a large resource's memory at
	// about half.
	ExactVectors bool `json:"exactVectors,omitempty"`
	// SnapshotMin is the size (messages) from which a resource's shard is
	// kept as a snapshot under Config.SnapshotDir; 0 means
	// DefaultSnapshotMin, negative means no snapshots.
	SnapshotMin int `json:"snapshotMin,omitempty"`
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
	loaded int        // messages of the loaded shards, as counted at load (guarded by mu)
	tick   uint64     // search counter for least-recently-used unloading (guarded by mu)
	snap   *snapshots // nil without Config.SnapshotDir
}

// NewIndex returns an Index over cfg. It loads nothing: each resource is
// loaded from cfg.Source on its first search. It returns
// ErrInvalidOptions without cfg.Lexical or cfg.Source, or for a tuning
// weight that is not finite (Tuning.Validate).
func NewIndex(cfg Config) (*Index, error) {
	if cfg.Lexical == nil || cfg.Source == nil {
		return nil, fmt.Errorf("%w: recall.Config needs Lexical and Source", ErrInvalidOptions)
	}
	if err := cfg.Tuning.Validate(); err != nil {
		return nil, err
	}
	if cfg.Embedder == nil {
		cfg.Embedder = HashEmbedder{}
	}
	cfg.Tuning = cfg.Tuning.Resolve(cfg.Embedder.ID())
	ix := &Index{cfg: cfg, emb: cfg.Embedder, shards: map[string]*shard{}}
	if _, ok := cfg.Source.(SnapshotSource); ok && cfg.SnapshotDir != "" && cfg.Tuning.SnapshotMin >= 0 && !cfg.Tuning.ExactVectors {
		sn, err := openSnapshots(ix, cfg.SnapshotDir)
		if err != nil {
			return nil, err
		}
		ix.snap = sn
	}
	return ix, nil
}

// Embedder returns the embedder the index uses.
func (ix *Index) Embedder() Embedder { return ix.emb }

// Lexical returns the lexical index.
func (ix *Index) Lexical() *Lexical { return ix.cfg.Lexical }

// Close is CloseContext with a background context: it writes every
// snapshot that is due, for at most a minute.
func (ix *Index) Close() error { return ix.CloseContext(context.Background()) }

// CloseContext writes the snapshots that are due until ctx
// ends or a minute has passed, unloads every resource
// (releasing its vectors' memory) and closes the lexical index. A snapshot
// not written (ctx cancelled: none is) is a cache left behind, caught up
// from the Source at the resource's next load; a write cut short leaves
// the previous file. The Index must not be used afterwards.
func (ix *Index) CloseContext(ctx context.Context) error {
	if ix.snap != nil {
		ix.snap.close(ctx, ix)
	}
	ix.Forget()
	return ix.cfg.Lexical.Close()
}

// location is resource's time zone (Config.Location), UTC when none.
func (ix *Index) location(resource string) *time.Location {
	if f := ix.cfg.Location; f != nil {
		if loc := f(resource); loc != nil {
			return loc
		}
	}
	return time.UTC
}
