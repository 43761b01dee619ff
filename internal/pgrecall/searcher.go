package pgrecall

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/recall"
)

// Config configures a Searcher.
type Config struct {
	// Pool is the Postgres pool of the database (pgstore.Open); required.
	Pool *pgxpool.Pool
	// Embedder embeds queries; nil means recall.HashEmbedder. It must be
	// the embedder whose vectors are stored (embeddings.embedder is its
	// ID).
	Embedder recall.Embedder
	// Tuning holds recall's measured knobs; zero fields mean recall's
	// defaults (recall.Tuning.Resolve). BleveScores, BleveMatches,
	// ExactVectors and MaxLoaded concern the SQLite backend's indexes and
	// are ignored.
	Tuning recall.Tuning
	// Location gives a resource's time zone, as recall.Config.Location
	// does (nil, or a nil result: UTC). A query naming a month of any year
	// ("in March") is matched in SQL by the zone's name, so a zone must be
	// one Postgres knows by that name (an IANA name such as
	// "America/Los_Angeles", as time.LoadLocation takes). The relative
	// dates stored with the messages (lexical_docs.ref_from) are resolved
	// by the writer in the zone it had then.
	Location func(resourceID string) *time.Location
	// QueryEmbedTimeout is recall.Config.QueryEmbedTimeout: the longest a
	// search waits for its query's vector (0: recall's
	// DefaultQueryEmbedTimeout; negative: its context only).
	QueryEmbedTimeout time.Duration
}

// Searcher answers recall queries from Postgres. It keeps nothing per
// resource between searches: every search reads the resource's current
// state, so any number of processes may search and write one database.
type Searcher struct {
	pool   *pgxpool.Pool
	emb    recall.Embedder
	tuning recall.Tuning
	loc    func(string) *time.Location // Config.Location; may be nil
	// queryEmbedTimeout is Config.QueryEmbedTimeout.
	queryEmbedTimeout time.Duration

	regMu chan struct{}     // guards reg: holds a token while held (registered)
	reg   *pgstore.Embedder // the registered embedder, once known
}

// New returns a Searcher over cfg. It returns ErrConfig when cfg.Pool is
// nil, and recall.ErrInvalidOptions for a tuning weight that is not finite
// (recall.Tuning.Validate). It does not touch the database.
func New(cfg Config) (*Searcher, error) {
	if cfg.Pool == nil {
		return nil, fmt.Errorf("%w: Pool is required", ErrConfig)
	}
	if err := cfg.Tuning.Validate(); err != nil {
		return nil, err
	}
	if cfg.Embedder == nil {
		cfg.Embedder = recall.HashEmbedder{}
	}
	return &Searcher{pool: cfg.Pool, emb: cfg.Embedder, tuning: cfg.Tuning.Resolve(cfg.Embedder.ID()), loc: cfg.Location,
		queryEmbedTimeout: cfg.QueryEmbedTimeout, regMu: make(chan struct{}, 1)}, nil
}

// location is resource's time zone (Config.Location), UTC when none.
func (s *Searcher) location(resource string) *time.Location {
	if s.loc != nil {
		if loc := s.loc(resource); loc != nil {
			return loc
		}
	}
	return time.UTC
}

// Embedder returns the embedder the searcher embeds queries with.
func (s *Searcher) Embedder() recall.Embedder { return s.emb }

// Search runs q with the semantics of recall's Index.Search (see the
// package documentation): ErrInvalidQuery, ErrInvalidOptions or a
// *recall.FilterError for a bad query; a failing channel does not fail the
// search (Result.Retrieval says so), both failing do.
func (s *Searcher) Search(ctx context.Context, q recall.Query) (*recall.Result, error) {
	p, err := q.Prepare()
	if err != nil {
		return nil, err
	}
	o := p.Options
	var qv []float32
	var qErr error
	if o.Mode != recall.ModeLexical {
		qv, qErr = s.embedQuery(ctx, q.Text)
	}
	v := newView(s, q, p, qv)
	r := recall.Ranking{Options: o, Thread: p.Thread, Query: q.Text, Tuning: s.tuning, QueryVector: qv != nil, Embedder: s.emb.ID(), Backlog: q.Backlog}
	var ch recall.Channels
	lexErr := v.prepareLexical(ctx)
	messages := 0.0 // the resource's, when its statistics were read
	if lexErr == nil {
		messages = v.lex.n
	}
	if err := s.restrict(ctx, v, messages); err != nil {
		return nil, err
	}
	if o.Mode != recall.ModeVector {
		ch.LexicalErr = lexErr
		if lexErr == nil {
			ch.Lexical, ch.LexicalErr = s.lexicalChannel(ctx, v)
		}
	}
	if o.Mode != recall.ModeLexical {
		ch.VectorErr = qErr
		if qErr == nil {
			ch.Vector, r.VectorStatus, ch.VectorErr = s.vectorChannel(ctx, v)
		}
	}
	if err := v.prepareRanking(ctx, ch); err != nil {
		return nil, err
	}
	r.Dates = v.lex.periods()
	return recall.Finish(ctx, v, ch, r)
}

// embedQuery returns the query's vector, waiting for it at most
// Config.QueryEmbedTimeout (recall.EmbedQuery).
func (s *Searcher) embedQuery(ctx context.Context, text string) ([]float32, error) {
	return recall.EmbedQuery(ctx, s.emb, text, s.queryEmbedTimeout)
}

// registered returns the searcher's embedder as registered in Postgres
// (pgstore.EnsureEmbedder: registered with its HNSW index on first use).
// One caller reads it at a time; the others wait for it no longer than
// their ctx allows: a read that waits (a locked table, a server that
// stopped answering) for a caller without a deadline held every other
// search past its own (TestPostgresSearchWaitHonoursContext).
func (s *Searcher) registered(ctx context.Context) (pgstore.Embedder, error) {
	select {
	case s.regMu <- struct{}{}:
	case <-ctx.Done():
		return pgstore.Embedder{}, fmt.Errorf("pgrecall: waiting for the embedder's registration: %w", ctx.Err())
	}
	defer func() { <-s.regMu }()
	if s.reg != nil {
		return *s.reg, nil
	}
	e, err := pgstore.EnsureEmbedder(ctx, s.pool, s.emb.ID(), s.emb.Dims())
	if err != nil {
		return pgstore.Embedder{}, err
	}
	s.reg = &e
	return e, nil
}
