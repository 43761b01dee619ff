package observe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-go/mnemo/journal"
)

// Defaults of Config. The thresholds follow Mastra's observational memory,
// whose reference documents 30,000 message tokens before the observer runs and
// 40,000 observation tokens before the reflector runs
// (https://mastra.ai/reference/memory/observational-memory): large enough that
// a model call happens once per long stretch of conversation and sees enough
// of it to write dense, attributed observations, and well under the context
// window of current models (the chunk sent is at most ChunkTokens).
const (
	DefaultThreshold        = 30000
	DefaultReflectThreshold = 40000
	// DefaultRecentN matches the engine's recent window: those turns are in
	// the prompt verbatim and are never observed.
	DefaultRecentN = 10
	// DefaultMaxRounds bounds the observer calls one Observe makes.
	DefaultMaxRounds = 16
	// DefaultCallTimeout bounds one model call, within the caller's context.
	DefaultCallTimeout = 2 * time.Minute
	// DefaultMaxAnswerTokens bounds the answer of one model call.
	DefaultMaxAnswerTokens = 4096
	// MaxAnswerTokensLimit is the largest Config.MaxAnswerTokens New
	// takes: 1,048,576 tokens, far above any model's output window (a
	// larger bound overflowed the answer's byte bound,
	// MaxAnswerBytesPerToken times it).
	MaxAnswerTokensLimit = 1 << 20
)

// Config configures New. DB, Journal, Source and Model are required; every
// other zero field means its default. The config is copied by New.
type Config struct {
	DB      *sql.DB          // the shared pool, SQLite or Postgres with mnemo's schema (the engine's own); not closed by Observer
	Journal *journal.Journal // memoizes model calls in journal.ScopeMemo
	Source  Source           // the turns of a thread
	Model   Model            // the observer and reflector model

	// Threshold is how many tokens of unobserved turns older than the recent
	// window trigger the observer (it runs when they reach Threshold); 0 means
	// DefaultThreshold.
	Threshold int
	// ChunkTokens bounds the turns sent in one observer call; 0 means
	// Threshold. A single tool-call group larger than it is sent whole.
	ChunkTokens int
	// ReflectThreshold is how many tokens of live observations of a thread
	// trigger the reflector; 0 means DefaultReflectThreshold. The
	// observations that are not reflections must also hold a quarter of
	// it: after a reflection that did not condense well below it, the
	// reflector waits for that many tokens of new observations instead of
	// running at every one (logged at WARN once per such reflection).
	ReflectThreshold int
	// RecentN is the recent window: the newest RecentN turns are never
	// observed. 0 means DefaultRecentN; a negative value means none.
	RecentN int
	// MaxRounds bounds the observer calls per Observe; 0 means DefaultMaxRounds.
	MaxRounds int
	// CallTimeout bounds one model call (its retries included, within the
	// caller's context); 0 or negative means DefaultCallTimeout (2 minutes).
	// A call cut by it returns an error matching ErrCallTimeout that names
	// the bound.
	CallTimeout time.Duration
	// MaxAnswerTokens bounds one answer, in tokens (sent as max_tokens;
	// an answer longer than MaxAnswerBytesPerToken bytes a token is
	// ErrMalformedAnswer); 0 or negative means DefaultMaxAnswerTokens
	// (4,096). New refuses one above MaxAnswerTokensLimit (ErrConfig).
	MaxAnswerTokens int

	Now    func() time.Time // clock for row times and the back-off after an unusable answer (Observe); nil means time.Now
	Logger *slog.Logger     // nil means discard
	// Redact removes secrets from the text of each observation and
	// reflection item before it is recorded in the journal and stored
	// (a model may restate a secret, and a custom Source may hand over
	// unredacted turns). It must be deterministic. Nil keeps the text.
	Redact func(text string) string
	// Writable, when set, is asked before a model call's answer is
	// recorded (journal.ScopeMemo) and in each transaction that would
	// store an observation or a reflection, after its thread's lock: its
	// error is returned, nothing recorded or stored (the engine's
	// refusal of new data into a database file found damaged, which an
	// observation in flight when it was found must meet too). Nil refuses
	// nothing.
	Writable func() error
}

// writable is Config.Writable's answer; nil when it is unset.
func (o *Observer) writable() error {
	if o.cfg.Writable == nil {
		return nil
	}
	return o.cfg.Writable()
}

// Observer runs the observer and the reflector over the threads of one
// database. It is safe for concurrent use; it holds no resources of its own.
type Observer struct {
	cfg     Config
	locks   [64]chan struct{} // striped per-thread locks (lock): a token each while held
	backoff answerBackoff     // per thread, after an unusable answer (answer_backoff.go)
	// inputCap bounds a chunk's tokens after a prompt over the model's
	// context (input_cap.go); 0: none.
	inputCap atomic.Int64
	// skipsTried holds the threads that keep a skip under another model
	// which this model refused too (retrySkips): their skips are not read
	// again. Only those: one entry for every thread observed grew without
	// bound in a long-running process (~100 bytes a thread).
	skipsTried sync.Map
	// refused holds the threads skipping turn after turn (refused_run.go).
	refused refusedRuns
	// probed is the last content probe answered (content_probe.go).
	probed probeMemo
}

// redactItems applies Config.Redact to the items of an answer.
func (o *Observer) redactItems(items []Item) {
	if o.cfg.Redact == nil {
		return
	}
	for i := range items {
		items[i].Text = o.cfg.Redact(items[i].Text)
	}
}

// New returns an observer for cfg, or ErrConfig naming a missing field.
// It is for mnemo's own packages: Config.DB is the engine's database,
// which the engine does not hand out; a library user turns the observer
// on with engine.Config.Observe and runs it with engine.Engine.Observe.
func New(cfg Config) (*Observer, error) {
	switch {
	case cfg.DB == nil:
		return nil, fmt.Errorf("%w: DB is nil", ErrConfig)
	case cfg.Journal == nil:
		return nil, fmt.Errorf("%w: Journal is nil", ErrConfig)
	case cfg.Source == nil:
		return nil, fmt.Errorf("%w: Source is nil", ErrConfig)
	case cfg.Model == nil:
		return nil, fmt.Errorf("%w: Model is nil", ErrConfig)
	case cfg.Threshold < 0, cfg.ChunkTokens < 0, cfg.ReflectThreshold < 0:
		return nil, fmt.Errorf("%w: negative threshold", ErrConfig)
	case cfg.MaxAnswerTokens > MaxAnswerTokensLimit:
		return nil, fmt.Errorf("%w: MaxAnswerTokens %d is above MaxAnswerTokensLimit (%d)", ErrConfig, cfg.MaxAnswerTokens, MaxAnswerTokensLimit)
	}
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultThreshold
	}
	if cfg.ChunkTokens == 0 {
		cfg.ChunkTokens = cfg.Threshold
	}
	if cfg.ReflectThreshold == 0 {
		cfg.ReflectThreshold = DefaultReflectThreshold
	}
	if cfg.RecentN == 0 {
		cfg.RecentN = DefaultRecentN
	} else if cfg.RecentN < 0 {
		cfg.RecentN = 0
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.MaxAnswerTokens <= 0 {
		cfg.MaxAnswerTokens = DefaultMaxAnswerTokens
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	o := &Observer{cfg: cfg}
	for i := range o.locks {
		o.locks[i] = make(chan struct{}, 1)
	}
	return o, nil
}

// Options adjust one Observe call. The zero value observes and reflects only
// when their thresholds are reached.
type Options struct {
	// Force observes every unobserved turn older than the recent window
	// (up to Config.MaxRounds calls per Observe: Result.MaxRoundsReached),
	// and reflects every thread with two or more live observations,
	// whatever the thresholds and the back-off after an unusable answer.
	Force bool
	// NoReflect skips the reflector.
	NoReflect bool
	// NoWait makes Observe return an error matching ErrThreadBusy at
	// once, having done nothing, when another process is observing the
	// thread (on Postgres: lockAcross), instead of waiting for it to
	// finish. Calls in one process wait for each other either way. The
	// engine's background observer sets it: the other process observes
	// the thread.
	NoWait bool
	// Waiting, when set, is called once when the call has waited
	// WaitNotice for another process observing the thread (Postgres) and
	// waits on, so that a command can say why it is silent (mnemo observe
	// does on stderr). It runs on a goroutine of its own and may run just
	// after the wait ended. Not called with NoWait, nor for a wait on
	// another call of the same process.
	Waiting func(threadID string)
}

// WaitNotice is how long Observe waits for another process observing the
// thread before it calls Options.Waiting: most observations of a thread
// end within it, and a command then stays quiet.
const WaitNotice = time.Second

// Result reports what one Observe call did. As JSON (`mnemo observe
// --json`) it is {"observations": [Observation…], "reflection":
// Observation (left out when none), "skipped": [Skip…] (left out when
// none), "pending": Plan, "backoffs":
// [Backoff…] (left out when none), "chunkCapTokens": n (left out when
// 0), "maxRoundsReached": true (left out when false)}.
type Result struct {
	// Observations stored by this call, oldest range first; empty, not
	// nil, when it stored none. A range whose observation already existed
	// is listed with that row. A range the observer found nothing worth
	// keeping in is listed with an empty Content. Skips made under another
	// model that this one took (retrySkips) come first.
	Observations []Observation `json:"observations"`
	// Reflection is the reflection stored by this call, if any.
	Reflection *Observation `json:"reflection,omitempty"`
	// Pending is the plan after the call: what is still unobserved. A
	// call stopped on an error after a round stored gives the plan that
	// round started from, past the round's turns (the watermark is the
	// stored one), when it could not read the plan again.
	Pending Plan `json:"pending"`
	// Skipped lists the ranges this call skipped, oldest first: their
	// content was refused by the endpoint when sent alone (Skip); left
	// out when none. Each is stored as an observation with empty Content
	// (not listed in Observations) and recorded in the journal
	// (Observer.Skips lists them all).
	Skipped []Skip `json:"skipped,omitempty"`
	// Backoffs lists, after the call, the thread's calls that back off
	// (Observer.Backoffs): each with its Until, the retry-after; left out
	// when none.
	Backoffs []Backoff `json:"backoffs,omitempty"`
	// ChunkCapTokens is, after the call, the observer's bound on a
	// chunk in estimated tokens since the model said a chunk was over its
	// context (ErrInputTooLong): half the tokens of the chunk that
	// failed, for every thread, kept in memory until a restart. 0 when
	// none (Config.ChunkTokens alone bounds a chunk). Config.ChunkTokens
	// (observe.chunkTokens in mnemo.json) at most this keeps it across
	// restarts: mnemo observe says so.
	ChunkCapTokens int `json:"chunkCapTokens,omitempty"`
	// MaxRoundsReached is true when the observer stopped at
	// Config.MaxRounds calls with turns still to observe (due, or
	// pending under Options.Force): Observe called again goes on from
	// there (mnemo observe does, until it is false). Left out when false.
	MaxRoundsReached bool `json:"maxRoundsReached,omitempty"`
}

// Observe runs the observer on threadID while its pending tokens reach the
// threshold (or, with opt.Force, while anything is pending), up to MaxRounds
// calls (stopped there, Result.MaxRoundsReached is set: call it again to go
// on), then the reflector when due. It always returns a Result, with an
// error too when it stops on one: the Result lists what was stored before
// the error, which stays stored (each observation moved the watermark);
// the failed range, or the reflection, is tried again on the next call,
// but after a second unusable answer in a row (ErrMalformedAnswer,
// ErrEmptyAnswer; and a prompt the endpoint rejects: ErrRequestRejected,
// ErrInputTooLong) the thread's observer, or reflector, backs off: no
// model call for the thread for 1, 2, 4, then at most 8 minutes (by
// Config.Now) after each further one, the calls in between doing without it and
// returning no error (the failure was returned and logged at WARN, with
// retryIn; Result.Backoffs says until when); opt.Force calls at once.
// After the endpoint refused the key, quota or model (ErrModelRefused)
// every thread's calls back off so from the first failure, logged once;
// after it refused the reflector's prompt for its content
// (ErrContentRefused) the thread's reflector does, the other threads'
// calls going on. An observer chunk refused for its content is cut in
// two and sent again at once until the refused turns are alone; those
// are skipped (Result.Skipped, Skips), the thread observed past them,
// once the endpoint answered a short harmless probe (one answered within
// the last minute stands for up to 8 skips); when it refuses the
// probe's content too (ErrAllContentRefused) nothing is skipped and every
// thread's calls back off as after ErrModelRefused. After two skips in a
// row in a thread its next turns are sent one message (or tool-call
// group) at a time, not in chunks cut in two, until one is answered. A
// thread's observer backs
// off on the chunk it failed on: once that chunk is observed (by
// ObserveRange, or by another process) the back-off ends.
// An observer chunk over the model's context (ErrInputTooLong) is cut in
// two and sent again at once while it can be cut. A failed call (ErrModel
// alone, ErrCallTimeout) does not back off.
// When it stored something before the error, the error matches ErrPartial
// as well as the cause (ErrModel, ErrMalformedAnswer, …), so a caller can
// tell a partial success from a call that stored nothing.
// Calls on one thread run one at a time, in a process and across
// processes (Postgres: lockAcross); waiting for another honours ctx, and
// with opt.NoWait another process's call is ErrThreadBusy at once.
func (o *Observer) Observe(ctx context.Context, threadID string, opt Options) (*Result, error) {
	res := &Result{Observations: []Observation{}}
	err := o.observe(ctx, threadID, opt, res)
	res.Backoffs = o.Backoffs(threadID)
	res.ChunkCapTokens = int(o.inputCap.Load())
	if err != nil && (len(res.Observations) > 0 || len(res.Skipped) > 0 || res.Reflection != nil) {
		err = &partialError{stored: len(res.Observations) + len(res.Skipped), err: err}
	}
	return res, err
}

// observe is Observe, filling res as it goes.
func (o *Observer) observe(ctx context.Context, threadID string, opt Options, res *Result) error {
	unlock, err := o.lock(ctx, threadID, opt)
	if err != nil {
		return err
	}
	defer unlock()
	res.Observations = append(res.Observations, o.retrySkips(ctx, threadID)...)
	refusedCap := 0 // a bound on chunks while isolating refused content (refusedChunk); 0: none
	for round := 0; ; round++ {
		p, err := o.plan(ctx, threadID)
		if err != nil {
			return err
		}
		res.Pending = *p
		// Isolating refused content goes on though what is left is not due.
		if p.Next == nil || (!p.Due && !opt.Force && refusedCap == 0) {
			break
		}
		if round >= o.cfg.MaxRounds {
			res.MaxRoundsReached = true
			break
		}
		if !opt.Force && !o.backoff.observerWaiting(threadID, p.Next[0].Seq, o.cfg.Now()).IsZero() {
			break // logged when it began (observeTurns)
		}
		turns := o.capChunk(p.Next)
		if refusedCap > 0 {
			turns = turns[:chunkEnd(turns, len(turns), refusedCap)]
		} else if o.refused.alone(threadID, turns[0].Seq) {
			turns = turns[:chunkEnd(turns, len(turns), 0)] // one group: refused_run.go
		}
		obs, _, err := o.observeTurns(ctx, turns, true)
		if err != nil && o.cutChunk(ctx, turns, err) {
			continue // a smaller chunk at once (input_cap.go)
		}
		if err != nil && errors.Is(err, ErrContentRefused) && ctx.Err() == nil {
			var sk *Skip
			if refusedCap, sk, err = o.refusedChunk(ctx, turns, err); refusedCap > 0 {
				continue // the first half at once (skip.go)
			}
			if sk != nil {
				res.Skipped = append(res.Skipped, *sk)
				res.Pending = passed(res.Pending, turns, o.cfg.Threshold)
				continue
			}
		}
		if err != nil {
			return err
		}
		o.refused.forget(threadID)
		res.Observations = append(res.Observations, *obs)
		res.Pending = passed(res.Pending, turns, o.cfg.Threshold)
	}
	if opt.NoReflect {
		return nil
	}
	r, err := o.reflect(ctx, threadID, opt.Force)
	if err != nil {
		return err
	}
	res.Reflection = r
	return nil
}

// passed is p, the plan a round started from, once the round stored
// turns (its observation or skip moved the watermark to their last seq):
// Result.Pending when the next round's plan fails (an interrupt while it
// reads the turns said the watermark one chunk behind the stored one:
// "observed … seq 9–12", then "watermark 8"; readme72 F4).
func passed(p Plan, turns []Turn, threshold int) Plan {
	p.Watermark = max(p.Watermark, turns[len(turns)-1].Seq)
	p.PendingTurns = max(p.PendingTurns-len(turns), 0)
	p.PendingTokens = max(p.PendingTokens-turnTokens(turns), 0)
	p.Due, p.Next = p.PendingTokens >= threshold, nil
	return p
}

// ObserveRange runs the observer on the turns of threadID with fromSeq <= seq
// <= toSeq, whatever the thresholds, and returns the observation and the
// recorded answer bytes. Called again for the same range it does not call the
// model and returns the same bytes and the same observation. It does not check
// the recent window or the watermark; it refuses (ErrConfig) a range that
// ends just before a tool result (it would split a tool-call group) and one
// that reaches into the pending turn (PendingStart: never distilled).
// A range the endpoint refuses for its content is ErrContentRefused,
// logged at WARN: nothing is skipped, nothing backs off. Its observation
// replaces the skips (Skip) of its range and of ranges within it.
// Waiting for another call on the thread honours ctx.
func (o *Observer) ObserveRange(ctx context.Context, threadID string, fromSeq, toSeq int64) (*Observation, []byte, error) {
	unlock, err := o.lock(ctx, threadID, Options{})
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	turns, err := o.rangeTurns(ctx, threadID, fromSeq, toSeq)
	if err != nil {
		return nil, nil, err
	}
	return o.observeTurns(ctx, turns, false)
}

// rangeTurns returns the turns of threadID with fromSeq <= seq <= toSeq
// when they may be observed as one range, else ErrConfig (the range splits
// a tool-call group or reaches the pending turn) or ErrEmptyAnswer (no
// turns). The rest of the thread shows whether the range ends before a tool
// result, and where the pending turn starts: it is read a page at a time,
// keeping the range's turns.
func (o *Observer) rangeTurns(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]Turn, error) {
	var (
		turns    []Turn
		first    int64
		nextRole string // of the turn after the range; "" when none
		scan     pendingScan
	)
	err := eachTurn(ctx, o.cfg.Source, threadID, fromSeq, func(t Turn) {
		if scan.n == 0 {
			first = t.Seq
		}
		scan.add(t)
		if t.Seq <= toSeq {
			turns = append(turns, t)
		} else if scan.n == len(turns)+1 {
			nextRole = t.Role
		}
	})
	if err != nil {
		return nil, err
	}
	pending, err := o.pendingStart(ctx, threadID, first, scan)
	if err != nil {
		return nil, err
	}
	if len(turns) > pending {
		return nil, fmt.Errorf("%w: range %d..%d of %s reaches the pending turn from seq %d (no answer follows it yet)",
			ErrConfig, fromSeq, toSeq, threadID, turns[pending].Seq)
	}
	if nextRole == RoleTool {
		return nil, fmt.Errorf("%w: range %d..%d of %s splits a tool-call group", ErrConfig, fromSeq, toSeq, threadID)
	}
	if len(turns) == 0 {
		return nil, fmt.Errorf("%w: no turns in %d..%d of %s", ErrEmptyAnswer, fromSeq, toSeq, threadID)
	}
	return turns, nil
}

// lock takes threadID's lock in the process (lockHere), then across
// processes (lockAcross), and returns the function that releases both.
// With opt.NoWait, a thread another process is observing is ErrThreadBusy
// at once; else opt.Waiting is told of a long wait for it.
func (o *Observer) lock(ctx context.Context, threadID string, opt Options) (unlock func(), err error) {
	here, err := o.lockHere(ctx, threadID)
	if err != nil {
		return nil, err
	}
	across, err := o.lockAcross(ctx, threadID, opt)
	if err != nil {
		here()
		return nil, err
	}
	return func() { across(); here() }, nil
}

// lockHere takes threadID's lock in the process (one of 64 stripes:
// threads that share one wait for each other too) and returns the function
// that releases it. It gives up with ctx's error when ctx ends first: the
// holder may be waiting for a slow model (MaxRounds calls of up to
// CallTimeout each), and a sync.Mutex held a LoadContext behind the
// background observer past its request's deadline, and an observation that
// an erasure cancelled waiting (TestObserveWaitHonoursContext).
func (o *Observer) lockHere(ctx context.Context, threadID string) (unlock func(), err error) {
	h := fnv.New32a()
	h.Write([]byte(threadID))
	l := o.locks[h.Sum32()%uint32(len(o.locks))]
	if l == nil { // a nil channel would block for ever
		panic("observe: an Observer must be made by New")
	}
	select {
	case l <- struct{}{}:
		return func() { <-l }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("observe: waiting for the observation in progress on thread %s: %w", threadID, ctx.Err())
	}
}

// MemoPrefix is the prefix of every memo key of threadID in
// journal.ScopeMemo; an erasure forgets them (Invalidate). '|' cannot
// occur in a thread id, so one thread's prefix never matches another's.
func MemoPrefix(threadID string) string { return "observe|" + threadID + "|" }

// complete makes one model call bounded by Config.CallTimeout. When that
// bound (not the caller's context) ended it, the error names the bound
// and wraps ErrCallTimeout and the model's error (ErrModel,
// context.DeadlineExceeded): a hung model showed only "context deadline
// exceeded".
func (o *Observer) complete(ctx context.Context, system, user string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, o.cfg.CallTimeout)
	defer cancel()
	out, err := o.cfg.Model.Complete(cctx, Prompt{System: system, User: user, JSON: true, MaxTokens: o.cfg.MaxAnswerTokens})
	if err == nil {
		o.modelAnswered(ctx)
	}
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return out, fmt.Errorf("%w within %s (the observer's call bound: observe.callTimeout in mnemo.json, Config.CallTimeout in Go): %w",
			ErrCallTimeout, o.cfg.CallTimeout, err)
	}
	if limit := o.cfg.MaxAnswerTokens * MaxAnswerBytesPerToken; err == nil && len(out) > limit {
		return "", fmt.Errorf("%w: the answer is %d bytes, more than the %d tokens asked for can hold (at most %d bytes, %d a token: observe.maxAnswerTokens in mnemo.json, Config.MaxAnswerTokens in Go); the endpoint did not honour max_tokens",
			ErrMalformedAnswer, len(out), o.cfg.MaxAnswerTokens, limit, MaxAnswerBytesPerToken)
	}
	return out, err
}

// MaxAnswerBytesPerToken bounds an answer of the model by the tokens it was
// asked for (Config.MaxAnswerTokens, sent as max_tokens): a longer answer,
// from an endpoint that ignored max_tokens, is ErrMalformedAnswer, and
// nothing of it is stored (its chunk is observed again at the next
// observation). 16 bytes a token is above what a token of text holds, so an
// answer within max_tokens always passes. Before, such an answer was
// stored whole, up to the 8 MiB an HTTP answer may hold
// (DefaultMaxResponseBytes): one observation of thousands of items that
// every later prompt of its thread carried.
const MaxAnswerBytesPerToken = 16
