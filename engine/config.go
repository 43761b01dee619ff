package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// Defaults for Config and LoadRequest fields left zero.
const (
	// DefaultDir is the data directory used by the CLI when none is given.
	DefaultDir = "./mnemo-data"
	// DefaultRecentN is the size of the recent window, in messages.
	DefaultRecentN = 10
	// DefaultMaxContentBytes bounds a user or assistant message's content:
	// 256 KiB.
	DefaultMaxContentBytes = 256 << 10
	// DefaultMaxToolResultBytes bounds a tool result's full content: 8 MiB;
	// beyond DefaultToolResultInlineBytes it is stored by reference with an
	// inline summary.
	DefaultMaxToolResultBytes = 8 << 20
	// DefaultToolResultInlineBytes is how much of a large tool result is
	// kept inline: 16 KiB.
	DefaultToolResultInlineBytes = 16 << 10
	// DefaultMaxMetadataBytes bounds a message's metadata, encoded as JSON:
	// 16 KiB.
	DefaultMaxMetadataBytes = 16 << 10
	// DefaultMaxMetadataDepth bounds the nesting depth of metadata, in
	// levels of objects and arrays.
	DefaultMaxMetadataDepth = 8
	// DefaultMaxMessagesPerAppend bounds the messages in one AppendRequest.
	DefaultMaxMessagesPerAppend = 1000
	// DefaultMaxToolCalls bounds the tool calls of one assistant message.
	DefaultMaxToolCalls = 128
	// DefaultMaxQueryBytes bounds an explicit recall query (LoadRequest.Query,
	// SearchRequest.Query): 16 KiB, about 4,000 tokens, four times a long
	// pasted question. Recall's cost grows with the query (every analysed
	// term is a postings lookup, the vector channel embeds the whole text):
	// a 2 MiB query took seconds a search; at 16 KiB the search costs about
	// what a one-line query does (BENCHMARKS.md, "Query length limit").
	DefaultMaxQueryBytes = 16 << 10
	// DefaultMaxAnswerBytes bounds the messages one SearchMessages or
	// LoadContext answer reads: 16 MiB of text, 64 messages of the largest
	// size (DefaultMaxContentBytes), about 4 million tokens, where a
	// LoCoMo or LongMemEval answer at topK 50, messageRange 2 reads well
	// under 1 MiB (BENCHMARKS.md, "Answer size bound"). topK ≤ 1000 and
	// messageRange ≤ 20 alone let one answer read ~10 GiB.
	DefaultMaxAnswerBytes = 16 << 20
)

// Config configures Open. The zero value of every field means its default;
// Open copies the config, so later changes to it have no effect.
type Config struct {
	// Dir is the data directory, created 0700 when missing. Required
	// unless Postgres is set, and then it must be empty.
	Dir string

	// Postgres, when set, is the DSN of a Postgres database (with the
	// pgvector extension) that holds the whole memory instead of a data
	// directory: a URL "postgres://user:password@host:port/db?sslmode=…"
	// or keyword/value pairs ("host=… dbname=…"), as libpq and pgx accept;
	// search_path selects the schema mnemo's tables live in. The database's
	// encoding must be UTF8 (else ErrDatabaseEncoding, nothing written);
	// connections always use client_encoding UTF8. Open creates
	// and migrates the tables (once, when several processes open at once).
	// The engine process then keeps no state of its own: several processes
	// on one database serve the same resources at once. Dir must be empty
	// (both set: a *ValidationError naming them); Holder and LockWait do
	// not apply (there is no directory nor lock file), and
	// Engine.Dir returns "". Empty means the SQLite database in Dir.
	Postgres string

	// MigrateUnderLoad, on Postgres, lets Open migrate a schema of an
	// older version while processes of older mnemo builds are connected to
	// it. False (the default) refuses with ErrMigrationUnderLoad naming
	// them: rows they write afterwards would lack what the new schema
	// reads (run mnemo reindex once they are stopped). Not used on SQLite,
	// whose data directory one process holds.
	MigrateUnderLoad bool

	// RecentN is the recent-window size LoadContext uses when a request
	// leaves it zero, and the observer's recent window, which it never
	// observes. Zero means DefaultRecentN; a negative value is refused by
	// Open (a *ValidationError on RecentN): a LoadRequest's negative
	// RecentN turns its window off, but the Config's cannot (it was read
	// as DefaultRecentN).
	RecentN int

	// Recall holds the recall options LoadContext uses when a request gives
	// none. Nil means recall off unless the request asks for it. Open
	// refuses options recall.Options.Validate refuses (a TopK, Threshold or
	// MessageRange out of range, an unknown Scope, Mode or Fusion, a Filter
	// that does not parse): a *ValidationError naming the field as the
	// config's, "Recall.TopK", "Recall.Filter" (a request's are
	// "recall.topK").
	Recall *recall.Options

	// Embedder computes vectors for the vector channel. The data directory
	// records the embedder its vectors come from, and
	// an embedder is never switched silently: Open with another one fails
	// with an *EmbedderMismatchError unless SwitchEmbedder.
	//
	// Nil means the directory's recorded embedder (hash-384, or use-lite
	// from the models directory; another one, e.g. an OpenAI-compatible
	// model, must be given), and for a new directory the default: use-lite
	// (semantic, 512 dimensions) when its weights are installed in the
	// models directory ($MNEMO_MODELS, else <user cache dir>/mnemo/models;
	// `mnemo models fetch use-lite`), else hash-384 (offline,
	// lexical-level). memctx.retrieval.embedder names the one that ran. A
	// use-lite install that cannot be loaded fails Open (with LazyEmbedder,
	// the first use instead).
	Embedder recall.Embedder

	// SwitchEmbedder lets Open take an Embedder other than the directory's
	// recorded one: the new one is recorded and every message is embedded
	// again in the background (the vector channel reports "degraded: n of
	// N messages not embedded yet" until done; Reindex(ctx, true) does it
	// now). False means such an Open fails (ErrEmbedderMismatch).
	SwitchEmbedder bool

	// LazyEmbedder is for a caller that embeds nothing of its own (no
	// Append, Search, LoadContext with recall or Reindex: mnemo threads,
	// export, check…). On a directory that records its embedder, Open then
	// loads none: the recorded embedder is used and opened on first use,
	// when something needs vectors (the outbox drainer embedding queued
	// messages, a search's query); a use-lite that is not installed fails
	// that use with an *EmbedderMismatchError matching
	// uselite.ErrNotInstalled (the messages stay indexed lexically with
	// their embeddings owed, a search's vector channel says "unavailable"),
	// and the next use tries again. A Config.Embedder other than the
	// recorded one is not refused but left unused (said at Info on the
	// Logger; SwitchEmbedder is not looked at), and the record is not
	// changed. An embedder that is not built
	// in (an OpenAI-compatible model) must still be given, as without it.
	// On a directory that records none yet (a new one) Open chooses, loads
	// and records the embedder as without it (Config.BuildEmbedder's when
	// given). False (the default): Open
	// loads the embedder and refuses a mismatching one, as documented
	// above; a writer (mnemo ingest, serve, mcp) keeps it false so that a
	// refusal comes before anything is written.
	LazyEmbedder bool

	// BuildEmbedder builds, when Embedder is nil, the embedder that Open
	// cannot choose alone: for a directory that records none yet (recorded
	// "": a new one, or one written before the record existed with no
	// vectors) instead of the default, which is then recorded; and for one
	// recorded with an embedder that is not built in (recorded
	// "openai:MODEL", an OpenAI-compatible model), whose id it must return
	// (else an *EmbedderMismatchError). Open calls it at most once and
	// returns its error as it is. Not called by a KeepOutbox open of a
	// directory that records none (it records nothing). The CLI gives it
	// for the commands that embed nothing, so that --embedder openai is
	// built only when the directory needs it. Nil (the default): the
	// default embedder for a new directory, an *EmbedderMismatchError for
	// one not built in.
	BuildEmbedder func(ctx context.Context, recorded string) (recall.Embedder, error)

	// KeepOutbox is for a caller that only reads (mnemo threads, export,
	// runs…): Open starts no outbox drainer, so the rows queued (messages
	// still to index or embed, erasures still to purge from the indexes)
	// stay exactly as they are, their attempts and retry times unchanged,
	// for the next Open without it, which drains them at once when they
	// are due. Without it, a LazyEmbedder open of a directory whose
	// embedder cannot be loaded (use-lite not installed) tried each owed
	// embedding and put it off again, up to 5 minutes, so that the next
	// writer waited that long before embedding it. SyncIndexes (and so
	// Check) still drains; rows queued by the engine's own writes wait for
	// the next Open. On a directory that records no embedder yet, Open
	// records none either (Embedder, else the default, is used unrecorded;
	// BuildEmbedder is not called), so that a read leaves the choice to the
	// next writer. False (the default): the drainer runs.
	KeepOutbox bool

	// QueryEmbedTimeout is the longest a search (Search, LoadContext's
	// recall) waits for its query's vector from the Embedder: 0 means
	// recall.DefaultQueryEmbedTimeout (5 seconds), negative no bound but
	// the caller's context. Past it the search runs lexical only and its
	// retrieval says "vector unavailable: embed query: the embedder did not
	// answer within 5s", so a stalled embedding endpoint does not hold
	// every recall until its caller's deadline.
	QueryEmbedTimeout time.Duration

	// RecallTuning holds recall's measured knobs (candidate pool, fusion
	// weight, BM25 re-scoring). The zero value means the measured defaults;
	// `mnemo eval` sets it to compare alternatives.
	RecallTuning recall.Tuning

	// Rerank, when set, adds a re-rank stage to every recall (LoadContext
	// and Search): the fused order's best Rerank.Depth candidates are
	// scored again by Rerank.Reranker (e.g. recall.NewOpenAIReranker: a
	// cross-encoder's /rerank or a chat model), within Rerank.Budget, after
	// which the fused order stands; memctx.retrieval.rerank records that
	// it ran, its status and its latency. Nil (the default) means none:
	// recall stays offline. Both backends run it (SQLite and Postgres).
	// A negative Rerank.Depth is refused by Open (a *ValidationError
	// naming Rerank.Depth).
	Rerank *recall.Rerank

	// Redactor removes secrets from every text before it is stored: message
	// content and names, tool-call arguments and metadata (as JSON), thread
	// titles, explicit LoadContext queries (memctx), working-memory states
	// and observation/reflection text. Nil means DefaultRedactor(); use
	// NoRedaction to store text unchanged. It must be deterministic.
	Redactor Redactor

	// Limits bounds message sizes; zero fields take their defaults,
	// negative ones are refused by Open.
	Limits Limits

	// Retention bounds the memctx records kept per thread; after each
	// LoadContext the thread's older runs beyond it are deleted, and
	// Expire deletes every thread's records older than MaxAge (an idle
	// thread's too; ExpireResult.PrunedRuns). The run ids stay claimed.
	// The zero
	// value keeps every run; a negative KeepRuns or MaxAge is refused by
	// Open (a *ValidationError naming Retention.KeepRuns or
	// Retention.MaxAge).
	Retention journal.Retention

	// UnsettledText is the synthetic tool result LoadContext gives a
	// dispatched call whose outcome is unknown (BeginDispatch). It is part of
	// the prompt: replay reproduces a run's hash only with the same text.
	// Empty means DefaultUnsettledText.
	UnsettledText string

	// Lifecycle bounds how long threads live and how much a resource and
	// the store may hold (Expire, Quota). The zero value keeps
	// every thread forever, unbounded.
	Lifecycle Lifecycle

	// SharedBounds shares Limits, Retention and Lifecycle through a
	// Postgres database, where no data directory holds the mnemo.json
	// every process reads: BoundsStore stores this Config's at Open as the
	// database's; BoundsStored applies the database's in place of this
	// Config's (this Config's when none are stored). The zero value,
	// BoundsOwn, neither reads nor stores them. Open refuses another value
	// on a data directory (a *ValidationError naming SharedBounds), and
	// stored bounds it cannot apply (ErrInvalidBounds). Engine.Bounds
	// reports the bounds applied.
	SharedBounds BoundsSharing

	// WorkingMemory turns on working memory (package working): the state of
	// the thread (or resource) is rendered into the system part and, unless
	// read-only, the updateWorkingMemory tool is offered. Open stores its
	// mode, schema or template, scope, read-only flag and MaxChars with the
	// states (replacing what an earlier configuration stored). Nil means the
	// stored configuration, so that every reader of the directory (mnemo
	// context, mnemo wm, mnemo serve) renders and validates alike; off when
	// none was ever stored. A stored one that does not build here does not
	// fail Open (the messages stay readable): Open logs a warning and
	// working memory's uses return ErrStoredWorkingMemory until an Open
	// with WorkingMemory set replaces it. Now defaults to the engine's.
	// Open refuses one
	// working.CheckConfig refuses (an unknown mode or scope, a schema it
	// cannot use, a negative MaxChars), creating nothing: a
	// *ValidationError on WorkingMemory that also matches
	// working.ErrInvalidConfig or working.ErrInvalidSchema.
	WorkingMemory *working.Config

	// Observe turns on observational memory (observer and reflector;
	// package observe, Engine.Observe). Nil means off: no model is ever
	// called.
	Observe *ObserveConfig

	// Events receives an Event for every erasure, quarantine, invalidation
	// and rebuild, with a stable reason code (Event.Reason). The engine never
	// blocks on it: when the channel is full the event is dropped and
	// counted (Engine.DroppedEvents), so give it a buffer. Nil means none.
	Events chan<- Event

	// EraseWait bounds how long an erasure waits for the work in flight on
	// the threads and resources it erases (a LoadContext composing, a
	// working-memory write) before it returns ErrEraseBusy and erases
	// nothing. Work on other threads and resources never waits for an
	// erasure, and an observer run on an erased thread is cancelled rather
	// than awaited. Zero means DefaultEraseWait; a negative value is
	// refused by Open (a *ValidationError naming EraseWait).
	EraseWait time.Duration

	// MustExist makes Open refuse, creating nothing, a Dir that does not
	// exist or holds no database (DatabaseFile): ErrNotDataDir. Tools that
	// only read set it, so that a mistyped path is an error rather than a
	// new, empty memory. False means Open creates what is missing. On
	// Postgres it refuses, creating nothing, a database whose search_path
	// schema holds no mnemo tables (ErrNotDataDir, its text saying so).
	MustExist bool

	// Holder names this process in the data directory's lock file
	// (LockFile), which a second process refused by Open reports, e.g.
	// "mnemo serve". Empty means the program's file name. Not used on
	// Postgres.
	Holder string

	// LockWait is how long Open waits for another process to release the
	// data directory before it returns a *LockedError (ErrLocked); Open
	// returns its context's error when that ends first. Zero means
	// DefaultLockWait; negative means not at all. Not used on Postgres,
	// where processes share the database.
	LockWait time.Duration

	// Logger receives operational logs. Nil means slog.DiscardHandler.
	Logger *slog.Logger

	// TimeZone is the time zone dates are written in: the recall markers'
	// dates, the observations' date spans, and the turns' times the observer
	// reads (so that "yesterday" resolves against the user's day). Nil means
	// UTC. Prefer a named zone (time.LoadLocation): memctx records its name
	// and replay loads it again.
	TimeZone *time.Location

	// ResourceTimeZone, when set, gives a resource's own time zone (a user
	// in Lisbon, another in Tokyo); a nil result means TimeZone. It is
	// called on every LoadContext and observer call, so it must be cheap and
	// safe for concurrent use.
	ResourceTimeZone func(resourceID string) *time.Location

	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

// Limits bounds what one Append may store, how long a recall query may
// be, and how much text one answer may read. A zero field takes its
// default; a negative one is refused by Open (a *ValidationError naming
// Limits.<Field>), as mnemo.json's limits.* are.
type Limits struct {
	MaxContentBytes       int // user/assistant content; default DefaultMaxContentBytes
	MaxToolResultBytes    int // tool content, stored in full by reference; default DefaultMaxToolResultBytes
	ToolResultInlineBytes int // inline part of a large tool result; default DefaultToolResultInlineBytes
	MaxMetadataBytes      int // metadata as JSON; default DefaultMaxMetadataBytes
	MaxMetadataDepth      int // nesting depth of metadata; default DefaultMaxMetadataDepth
	MaxMessagesPerAppend  int // default DefaultMaxMessagesPerAppend
	MaxToolCalls          int // tool calls per assistant message; default DefaultMaxToolCalls
	// MaxQueryBytes bounds an explicit query of Search and LoadContext
	// (longer: ErrQueryTooLong, nothing searched or recorded); LoadContext's
	// implicit query, the newest user message, is cut to its first
	// MaxQueryBytes (at a character boundary) instead. Default
	// DefaultMaxQueryBytes. Stored messages are bounded by the fields above.
	MaxQueryBytes int
	// MaxAnswerBytes bounds the text (content, name, tool calls, metadata)
	// of the messages one SearchMessages or LoadContext reads to assemble
	// its answer: the hits and their range neighbours, and for LoadContext
	// the recent window and the tool calls and results pairing reads for
	// the turns, before any TokenBudget cut. The reads count
	// the bytes row by row and stop once the bound is passed, and the call
	// fails with an *AnswerTooLargeError (ErrAnswerTooLarge) naming the
	// request fields to lower; nothing is recorded. The pending turn the
	// window always holds and the previews of the unobserved turns it
	// leaves out are read within it too. Replay reads a run's turns
	// within it (a *ReplayTooLargeError over it). Default
	// DefaultMaxAnswerBytes; Open refuses one below MaxContentBytes (with
	// its default), under which a thread whose newest message is larger
	// loads no context (ErrAnswerBoundTooSmall), and Append refuses one
	// message whose text passes it (tool calls and metadata count: up to
	// MaxToolCalls arguments of MaxContentBytes each pass the default), a
	// *ValidationError naming its largest part.
	MaxAnswerBytes int
}

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxContentBytes, DefaultMaxContentBytes)
	def(&l.MaxToolResultBytes, DefaultMaxToolResultBytes)
	def(&l.ToolResultInlineBytes, DefaultToolResultInlineBytes)
	def(&l.MaxMetadataBytes, DefaultMaxMetadataBytes)
	def(&l.MaxMetadataDepth, DefaultMaxMetadataDepth)
	def(&l.MaxMessagesPerAppend, DefaultMaxMessagesPerAppend)
	def(&l.MaxToolCalls, DefaultMaxToolCalls)
	def(&l.MaxQueryBytes, DefaultMaxQueryBytes)
	def(&l.MaxAnswerBytes, DefaultMaxAnswerBytes)
	return l
}

// checkSizes refuses a negative Config.RecentN, Limits field or bound
// (checkBounds), which
// Open read as its default: a negative RecentN in a LoadRequest turns the
// window off, and a negative bound reads as none, so a caller writing one
// means something else than the default it got.
func checkSizes(cfg Config) error {
	if cfg.RecentN < 0 {
		return invalid(-1, "RecentN", "must be 0 (DefaultRecentN, %d) or more, got %d: only a LoadRequest's RecentN turns the window off", DefaultRecentN, cfg.RecentN)
	}
	l := cfg.Limits
	for _, f := range []struct {
		name string
		v    int
	}{
		{"MaxContentBytes", l.MaxContentBytes}, {"MaxToolResultBytes", l.MaxToolResultBytes},
		{"ToolResultInlineBytes", l.ToolResultInlineBytes}, {"MaxMetadataBytes", l.MaxMetadataBytes},
		{"MaxMetadataDepth", l.MaxMetadataDepth}, {"MaxMessagesPerAppend", l.MaxMessagesPerAppend},
		{"MaxToolCalls", l.MaxToolCalls}, {"MaxQueryBytes", l.MaxQueryBytes}, {"MaxAnswerBytes", l.MaxAnswerBytes},
	} {
		if f.v < 0 {
			return invalid(-1, "Limits."+f.name, "must be 0 (the default) or more, got %d", f.v)
		}
	}
	return checkBounds(cfg)
}

// checkBounds refuses a negative Quota or Retention bound, which read as
// no bound at all (as 0 does), so a caller writing one is told rather
// than left unbounded; and a negative Lifecycle.IdleTTL (read as no
// lifetime), EraseWait (read as DefaultEraseWait) or Rerank.Depth (read
// as the query's TopK: no candidate beyond it re-ranked).
func checkBounds(cfg Config) error {
	q := cfg.Lifecycle.Quota
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"ResourceMessages", q.ResourceMessages}, {"ResourceBytes", q.ResourceBytes},
		{"StoreMessages", q.StoreMessages}, {"StoreBytes", q.StoreBytes},
	} {
		if f.v < 0 {
			return invalid(-1, "Lifecycle.Quota."+f.name, "must be 0 (no bound) or more, got %d", f.v)
		}
	}
	if cfg.Lifecycle.IdleTTL < 0 {
		return invalid(-1, "Lifecycle.IdleTTL", "must be 0 (threads never expire) or more, got %v: only SetIdleTTL's negative lifetime means never", cfg.Lifecycle.IdleTTL)
	}
	if cfg.EraseWait < 0 {
		return invalid(-1, "EraseWait", "must be 0 (DefaultEraseWait, %s) or more, got %v", DefaultEraseWait, cfg.EraseWait)
	}
	if rr := cfg.Rerank; rr != nil && rr.Depth < 0 {
		return invalid(-1, "Rerank.Depth", "must be 0 (recall.DefaultRerankDepth, %d) or more, got %d", recall.DefaultRerankDepth, rr.Depth)
	}
	if r := cfg.Retention; r.KeepRuns < 0 {
		return invalid(-1, "Retention.KeepRuns", "must be 0 (no limit by count) or more, got %d", r.KeepRuns)
	} else if r.MaxAge < 0 {
		return invalid(-1, "Retention.MaxAge", "must be 0 (no limit by age) or more, got %v", r.MaxAge)
	}
	return nil
}

// checkDefaults refuses a Config.Recall that recall.Options.Validate
// refuses, a *ValidationError naming the field as the config's
// ("Recall.Scope", "Recall.Filter"), and a Config.WorkingMemory that
// working.CheckConfig refuses, one on WorkingMemory matching
// working.ErrInvalidConfig or working.ErrInvalidSchema. Open took both,
// and then every LoadContext failed: Recall's naming "recall.scope" as if
// the request had given it, WorkingMemory's every HandleToolCall too.
func checkDefaults(cfg Config) error {
	if cfg.Recall != nil {
		if _, err := resolveRecall(*cfg.Recall, true); err != nil {
			return err
		}
	}
	if w := cfg.WorkingMemory; w != nil {
		if err := working.CheckConfig(*w); err != nil {
			ve := &ValidationError{Index: -1, Field: "WorkingMemory", Err: working.ErrInvalidConfig, Rule: err.Error()}
			if errors.Is(err, working.ErrInvalidSchema) {
				ve.Err = working.ErrInvalidSchema
			}
			ve.Rule = strings.TrimPrefix(strings.TrimPrefix(ve.Rule, ve.Err.Error()), ": ")
			return ve
		}
	}
	return nil
}

// checkLimits refuses Limits that cannot hold, l with its defaults: a
// MaxAnswerBytes below MaxContentBytes (ErrAnswerBoundTooSmall), under
// which a thread whose newest message is larger than the bound loads no
// context at all (its recent window of one message passes it). The rule
// is the content bound, not the largest message the other limits allow
// (content, metadata and up to MaxToolCalls arguments of MaxContentBytes
// each, 32 MiB by default), which the default bound itself is below:
// Append refuses a message whose text passes MaxAnswerBytes instead
// (checkAnswerBound).
func checkLimits(l Limits) error {
	if l.MaxAnswerBytes < l.MaxContentBytes {
		return &ValidationError{Index: -1, Field: "Limits.MaxAnswerBytes", Err: ErrAnswerBoundTooSmall, Rule: fmt.Sprintf(
			"must be at least Limits.MaxContentBytes (%d), the content one message may hold, or a thread whose newest message is larger loads no context; got %d",
			l.MaxContentBytes, l.MaxAnswerBytes)}
	}
	return nil
}

// location is the time zone of resourceID's dates: Config.ResourceTimeZone's
// answer, else Config.TimeZone, else UTC.
func (e *Engine) location(resourceID string) *time.Location {
	if f := e.cfg.ResourceTimeZone; f != nil {
		if loc := f(resourceID); loc != nil {
			return loc
		}
	}
	if e.cfg.TimeZone != nil {
		return e.cfg.TimeZone
	}
	return time.UTC
}
