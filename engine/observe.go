package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
)

// Observation scopes: which live observations LoadContext renders.
const (
	ObserveScopeThread   = "thread"   // the thread's own observations (default)
	ObserveScopeResource = "resource" // every thread of the resource
)

// DefaultObserveQueue bounds the threads waiting for background observation;
// a thread kicked while it is full waits in an overflow set (one entry a
// thread) and is observed once the queue is drained.
const DefaultObserveQueue = 64

// ObserveConfig turns on observational memory (DESIGN.md, "Observational
// memory"). The zero value of each field means its default.
type ObserveConfig struct {
	// Model is the observer and reflector model, e.g. an
	// observe.OpenAIModel built from OPENAI_BASE_URL, OPENAI_API_KEY and
	// MNEMO_MODEL. Nil means read-only: LoadContext renders the stored
	// observations, and Observe returns an error wrapping observe.ErrConfig.
	Model observe.Model
	// Threshold, ChunkTokens, ReflectThreshold, MaxRounds and CallTimeout
	// are passed to observe.Config; zero means the observe defaults
	// (observe.DefaultThreshold = 30,000 tokens, observe.DefaultReflectThreshold
	// = 40,000 tokens). The recent window is Config.RecentN. A negative
	// one is refused by Open (a *ValidationError naming Observe.<Field>).
	Threshold int
	// ChunkTokens is observe.Config.ChunkTokens, in estimated tokens.
	ChunkTokens int
	// ReflectThreshold is observe.Config.ReflectThreshold, in estimated tokens.
	ReflectThreshold int
	// MaxRounds is observe.Config.MaxRounds (0: observe.DefaultMaxRounds, 16).
	MaxRounds int
	// CallTimeout is observe.Config.CallTimeout: the bound on one model
	// call, retries included (0: observe.DefaultCallTimeout, 2 minutes;
	// mnemo.json's observe.callTimeout; negative: refused by Open, it was
	// read as the default). A call cut by it fails with an error matching
	// observe.ErrCallTimeout that names the bound.
	CallTimeout time.Duration
	// MaxAnswerTokens is observe.Config.MaxAnswerTokens: the bound on one
	// answer of the observer or the reflector, in tokens, sent as
	// max_tokens (0: observe.DefaultMaxAnswerTokens, 4,096; mnemo.json's
	// observe.maxAnswerTokens). Raise it when answers are cut at
	// max_tokens; a negative one, or one above
	// observe.MaxAnswerTokensLimit, is refused by Open (a
	// *ValidationError naming Observe.MaxAnswerTokens).
	MaxAnswerTokens int
	// MaxUnobservedTokens bounds the unobserved part of LoadContext's
	// recent window, in estimated tokens (the messages' stored estimates,
	// about 4 bytes each). The window holds every message after the
	// observed watermark while they fit; when the observer falls behind
	// (its model down, observation switched on late, nobody calling
	// Observe), the oldest unobserved messages beyond the bound are left
	// out of the prompt: they stay stored, are observed later as usual,
	// recall may bring them back, and the run's memctx lists them as
	// dropped with reason "unobserved". The window never holds fewer than
	// its RecentN newest messages, nor less than the pending turn, nor half
	// a tool-call group. 0 means DefaultUnobservedFactor (4) times the
	// Threshold, at least DefaultMaxUnobservedTokens (120,000 tokens);
	// NoUnobservedBound means no bound. Negative: Open returns a
	// *ValidationError naming Observe.MaxUnobservedTokens.
	MaxUnobservedTokens int
	// Background runs the observer (and reflector) after every Append that
	// stored messages, in one background goroutine that Close cancels. It
	// never delays Append. It starts at Open and first resumes what an
	// earlier process left (killed, or closed while its model failed or
	// hung): between queued threads it walks every thread, a page of
	// backlogPage (100) at a time, and observes those with more than
	// RecentN messages after their watermark holding at least the
	// Threshold in tokens, and reflects those whose live observations hold
	// at least the ReflectThreshold, without a new append (a range
	// observed before is not sent to the model again: the journal
	// memoizes it). Open reads nothing for it. A thread another process is observing (Postgres) is
	// skipped: that process observes it. While mnemo.db is known damaged
	// (ErrDatabaseCorrupt) or was replaced (ErrDatabaseReplaced) it
	// holds, logging "background observer held" once; when the record of
	// damage is removed it resumes within store.DamageMarkRecheck (2 s)
	// and walks the threads left due again. Off by default: observation
	// runs when Observe is called.
	Background bool
	// SyncOnLoad runs the observer inside LoadContext, before the
	// observations are rendered, when its threshold is reached. Off by
	// default: LoadContext never waits for a model unless asked to. A failed
	// observation does not fail LoadContext; the previous observations are
	// rendered.
	SyncOnLoad bool
	// Scope is ObserveScopeThread (default when empty) or
	// ObserveScopeResource; another is refused by Open (a
	// *ValidationError naming Observe.Scope).
	Scope string
	// SearchTool offers the model the opt-in recallObservations tool (BM25
	// over the live observations of the scope) in every context. Off by
	// default: turning observational memory on never gives the model a new
	// tool by itself.
	SearchTool bool
}

// observeState is the engine's observational memory, built on first use.
type observeState struct {
	once  sync.Once
	obs   *observe.Observer
	built atomic.Pointer[observe.Observer] // obs once built: builtObserver
	err   error
	queue chan string

	mu       sync.Mutex
	queued   map[string]bool // threads in queue or overflow: a burst of appends queues a thread once
	overflow map[string]bool // threads kicked while queue was full, observed once it is drained

	warned unobservedWarnings // unobserved.go

	// held is set while the background observer waits because mnemo.db
	// may not be written (background_hold.go).
	held atomic.Bool
}

// observer returns the engine's observer; nil, nil when observation is off
// or read-only (no model).
func (e *Engine) observer() (*observe.Observer, error) {
	c := e.cfg.Observe
	if c == nil {
		return nil, nil
	}
	s := &e.obs
	s.once.Do(func() {
		if c.Model == nil {
			return
		}
		s.obs, s.err = observe.New(e.observeConfig(c.Model))
		s.built.Store(s.obs)
		if s.err != nil || !c.Background {
			return
		}
		queue := make(chan string, DefaultObserveQueue)
		if e.spawn(func() { e.observeLoop(queue) }) == nil {
			s.queue = queue // after Close began, appends queue nothing
		}
	})
	return s.obs, s.err
}

// startObserver starts the background observer at Open when
// ObserveConfig.Background is set with a model: it resumes the threads an
// earlier process left over the threshold (backlog) without waiting for
// their next append. An invalid Scope is returned by the first call that
// uses the observer, as without Background.
func (e *Engine) startObserver() {
	if c := e.cfg.Observe; c != nil && c.Background && c.Model != nil {
		_, _ = e.observer()
	}
}

// observeConfig is the observer's configuration, calling model.
func (e *Engine) observeConfig(model observe.Model) observe.Config {
	c := e.cfg.Observe
	return observe.Config{
		DB: e.db, Journal: e.journal, Source: engineSource{e}, Model: model,
		Threshold: c.Threshold, ChunkTokens: c.ChunkTokens, ReflectThreshold: c.ReflectThreshold,
		RecentN: e.cfg.RecentN, MaxRounds: c.MaxRounds, CallTimeout: c.CallTimeout, MaxAnswerTokens: c.MaxAnswerTokens,
		Now: e.now, Logger: e.log, Redact: e.redactor.Redact,
		Writable: e.damagedFile, // stats.go: an observation begun before the damage was found is not stored
	}
}

// forgetBackoffs drops what the observer holds in memory of threads,
// whose turns an erasure or an expiry took (observe.Observer.Forget:
// their back-offs, and their mark that their skips under another model
// were sent again): they stayed in its maps until a restart. Nothing
// when the observer was never built.
func (e *Engine) forgetBackoffs(threads []string) {
	obs := e.builtObserver()
	if obs == nil {
		return
	}
	for _, t := range threads {
		obs.Forget(t)
	}
}

// ObserveBackoffs lists threadID's observer and reflector calls backing
// off now after failures in a row, each with its Until, the retry-after,
// and the last failure's error (observe.Observer.Backoffs), then, last,
// every call's when the model endpoint refused the key, quota or model
// (Call observe.BackoffModel, ThreadID ""). Nil when none, when threadID
// is "" (never every thread's: a caller shows one thread it checked the
// principal may read), or when this process's observer was never built:
// back-offs live in the process's memory (a restart forgets them). It
// reads no database and does not check that the thread exists.
func (e *Engine) ObserveBackoffs(threadID string) []observe.Backoff {
	obs := e.builtObserver()
	if obs == nil || threadID == "" {
		return nil
	}
	return obs.Backoffs(threadID)
}

// ObserveSkips lists the ranges of threadID the observer skipped,
// oldest first: turns whose content the model endpoint refused when sent
// alone (observe.Skip: seqs, reason, time; never the turns' text). The
// thread is observed past them; they stay in the thread and its recall.
// Empty when none or when the observer never ran on the thread; an
// erasure in the thread forgets them. It reads the database whether or
// not this process observes, and does not check that the thread exists.
// Errors: the database's.
func (e *Engine) ObserveSkips(ctx context.Context, threadID string) ([]observe.Skip, error) {
	sk, err := observe.Skips(ctx, e.db, threadID)
	if err != nil {
		return nil, fmt.Errorf("engine: observe skips of %s: %w", threadID, err)
	}
	return sk, nil
}

// observeBackoffs counts the threads' calls backing off, and gives the
// endpoint's refusal (observe.BackoffModel) when there is one; 0 and nil
// when the observer was never built.
func (e *Engine) observeBackoffs() (threads int, refused *observe.Backoff) {
	obs := e.builtObserver()
	if obs == nil {
		return 0, nil
	}
	for _, b := range obs.Backoffs("") {
		if b.Call == observe.BackoffModel {
			refused = &b
		} else {
			threads++
		}
	}
	return threads, refused
}

// builtObserver is the engine's observer when something built it
// already (observer), else nil: a caller that only reads its state never
// builds it.
func (e *Engine) builtObserver() *observe.Observer {
	return e.obs.built.Load()
}

// planner returns an observer whose Plan says what the engine's observer
// would do: the engine's own, or, render-only (no model: the one-shot
// commands), one built for planning alone, whose model is never called.
// nil when observation is off.
func (e *Engine) planner() (*observe.Observer, error) {
	obs, err := e.observer()
	if err != nil || obs != nil || e.cfg.Observe == nil {
		return obs, err
	}
	return observe.New(e.observeConfig(planOnlyModel{}))
}

// planOnlyModel is the model of a planner: Plan calls no model.
type planOnlyModel struct{}

func (planOnlyModel) ID() string { return "plan-only" }

func (planOnlyModel) Complete(context.Context, observe.Prompt) (string, error) {
	return "", fmt.Errorf("%w: a planning observer calls no model", observe.ErrModel)
}

// Observe runs the observer on threadID now, and then the reflector, each
// when its threshold is reached (opt.Force: whatever the thresholds). It
// returns what was stored. It returns an error wrapping observe.ErrConfig
// when observational memory is off (Config.Observe is nil), and the
// observer's error when the model failed: the previous observations and the
// watermark are then unchanged, and the range is tried again next time
// (after a back-off of up to 8 minutes once the model answered unusably
// twice in a row: observe.Observer.Observe; opt.Force tries at once).
// Calls on one thread run one at a time, in the process and, on Postgres,
// across processes: a call while another process observes the thread
// waits for it (as long as ctx allows) and then observes what is still
// due; with opt.NoWait it returns an error matching observe.ErrThreadBusy
// at once.
// Once the observer has run, the result comes with its error and lists
// what was stored before it (it stays stored); the error then matches
// observe.ErrPartial too (observe.Observer.Observe). So does
// ErrObserveCancelled's when an erasure cancelled a call whose earlier
// rounds stored observations: the result lists them as stored, and that
// erasure then erases or invalidates those it reaches. An observation
// with empty Content marks a range the observer found nothing worth
// keeping in.
func (e *Engine) Observe(ctx context.Context, threadID string, opt observe.Options) (*observe.Result, error) {
	if err := e.checkWritable(ctx); err != nil {
		return nil, err
	}
	if !ValidID(threadID) {
		return nil, badID(-1, "threadId", threadID, false)
	}
	o, err := e.observer()
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("%w: observational memory is off (Config.Observe or its Model is nil)", observe.ErrConfig)
	}
	if _, err := e.GetThread(ctx, threadID); err != nil {
		return nil, err
	}
	return e.observeFenced(ctx, o, threadID, opt)
}

// observeFenced runs the observer on threadID holding the thread's fence
// key (fence.go): an erasure of the thread, or of one of its turns, cancels
// the run instead of waiting for its model call, and the run returns
// ErrObserveCancelled (observeCancelled) with the observer's Result.
func (e *Engine) observeFenced(ctx context.Context, o *observe.Observer, threadID string, opt observe.Options) (*observe.Result, error) {
	work, done, err := e.erasure.fence.enter(ctx, threadKey(threadID), true)
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := o.Observe(work, threadID, opt)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(work), ErrObserveCancelled) {
		return res, observeCancelled(threadID, res)
	}
	return res, err
}

// observeCancelled is the error of an observer run on threadID that an
// erasure cancelled: ErrObserveCancelled, and, when res lists what its
// earlier rounds stored, observe.Partial's error over it (matching
// observe.ErrPartial, counting the observations and skips stored: it
// returned nil before, and the caller could not tell those were stored).
// Being observe.Partial's, a caller that ran several calls counts them
// all by observe.Partial again, one count in the text (it read "observe:
// 19 observation(s) stored, then: …: t, after 3 observation(s) were
// stored: …", the command's then the run's).
func observeCancelled(threadID string, res *observe.Result) error {
	err := fmt.Errorf("%w: %s", ErrObserveCancelled, threadID)
	if res != nil && (len(res.Observations)+len(res.Skipped) > 0 || res.Reflection != nil) {
		return observe.Partial(len(res.Observations)+len(res.Skipped), err)
	}
	return err
}

// Observations lists the observations and reflections of a thread or a
// resource (live ones with content unless f.All, which adds the retired,
// the invalidated and the empty ones: ranges the observer found nothing
// worth keeping in). It works whether or not observational
// memory is configured. A filter naming neither a thread nor a resource is
// a *ValidationError on "filter", a thread or resource id Append would
// refuse (ValidID: empty, NUL, invalid UTF-8, past 128 bytes) one on
// "filter.threadId" or "filter.resourceId", and an id of f.IDs it would
// refuse one on "filter.ids[i]" (as GetThread and MessagesByID refuse
// one); each also matches recall.ErrInvalidFilter, and nothing is read.
// A filter naming a thread and a resource lists the thread's
// observations of that resource: a stored thread of another resource is
// ErrResourceMismatch naming only the ids given, as Search answers it (the
// resource was not looked at, and another resource's thread was listed).
func (e *Engine) Observations(ctx context.Context, f observe.Filter) ([]observe.Observation, error) {
	if err := checkObservationFilter(f); err != nil {
		return nil, err
	}
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if f.ThreadID != "" && f.ResourceID != "" {
		return e.observationsOf(ctx, f)
	}
	return observe.List(ctx, e.db, f)
}

// observationsOf lists the observations of f.ThreadID that f.ResourceID
// recorded; a stored thread of another resource is ErrResourceMismatch.
func (e *Engine) observationsOf(ctx context.Context, f observe.Filter) ([]observe.Observation, error) {
	if _, err := e.resourceOf(ctx, f.ThreadID, f.ResourceID); err != nil && !errors.Is(err, ErrThreadNotFound) {
		return nil, err
	}
	obs, err := observe.List(ctx, e.db, f)
	if err != nil {
		return nil, err
	}
	// A thread stored nowhere: only the rows the resource recorded (none
	// once an erasure took the thread's).
	mine := obs[:0]
	for _, o := range obs {
		if o.ResourceID == f.ResourceID {
			mine = append(mine, o)
		}
	}
	return mine, nil
}

// checkObservationFilter refuses a filter Observations cannot answer: one
// with neither ThreadID nor ResourceID, a malformed one of them, or a
// malformed id in IDs.
func checkObservationFilter(f observe.Filter) error {
	bad := func(field, id string) error {
		ve := badID(-1, field, id, false)
		ve.Err = recall.ErrInvalidFilter
		return ve
	}
	switch {
	case f.ThreadID == "" && f.ResourceID == "":
		return &ValidationError{Index: -1, Field: "filter", Rule: "needs a threadId or a resourceId", Err: recall.ErrInvalidFilter}
	case f.ThreadID != "" && !ValidID(f.ThreadID):
		return bad("filter.threadId", f.ThreadID)
	case (f.ThreadID == "" || f.ResourceID != "") && !ValidID(f.ResourceID):
		return bad("filter.resourceId", f.ResourceID)
	}
	for i, id := range f.IDs {
		if !ValidID(id) {
			return bad(fmt.Sprintf("filter.ids[%d]", i), id)
		}
	}
	return nil
}

// liveObservations returns the live observations and reflections of the
// thread (or resource, per ObserveConfig.Scope) in the order LoadContext
// renders them (observe.Render). Observational memory is off until
// configured: then there are none.
func (e *Engine) liveObservations(ctx context.Context, threadID, resourceID string) ([]observe.Observation, error) {
	if e.cfg.Observe == nil {
		return nil, nil
	}
	f := observe.Filter{ThreadID: threadID}
	if e.cfg.Observe.Scope == ObserveScopeResource && resourceID != "" {
		f = observe.Filter{ResourceID: resourceID}
	}
	live, err := observe.List(ctx, e.db, f)
	if err != nil {
		return nil, err
	}
	if f.ResourceID != "" {
		if err := e.inThreadOrder(ctx, resourceID, live); err != nil {
			return nil, err
		}
	}
	return live, nil
}

// inThreadOrder sorts a resource's live observations (observe.List's
// order) by their threads in conversation order (ListThreads' order:
// creation time, then id), stably, not by thread id. It reads the rows of
// the threads they name only (msgstore.ThreadsInOrder), not every thread
// of the resource. A thread no longer stored (erased since List) ranks
// with the first.
func (e *Engine) inThreadOrder(ctx context.Context, resourceID string, live []observe.Observation) error {
	var ids []string
	for i, o := range live {
		if i == 0 || o.ThreadID != live[i-1].ThreadID { // List groups them by thread
			ids = append(ids, o.ThreadID)
		}
	}
	order, err := e.ms.ThreadsInOrder(ctx, resourceID, ids)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	rank := make(map[string]int, len(order))
	for i, id := range order {
		rank[id] = i
	}
	slices.SortStableFunc(live, func(a, b observe.Observation) int { return cmp.Compare(rank[a.ThreadID], rank[b.ThreadID]) })
	return nil
}

// observeOnLoad runs the observer on the thread before LoadContext composes
// the prompt, when ObserveConfig.SyncOnLoad asks for it. A failure is logged,
// not returned: the previous observations stay in force and the unobserved
// turns stay in the recent window.
func (e *Engine) observeOnLoad(ctx context.Context, threadID string) error {
	if e.cfg.Observe == nil || !e.cfg.Observe.SyncOnLoad {
		return nil
	}
	o, err := e.observer()
	if err != nil || o == nil {
		return err
	}
	_, err = e.observeFenced(ctx, o, threadID, observe.Options{})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		e.log.WarnContext(ctx, "synchronous observation failed; previous observations used", "thread", threadID, "err", err)
	}
	return nil
}

// afterAppend runs after an Append that stored messages: with
// ObserveConfig.Background it queues the thread for the background
// observer, once however many appends arrive before it runs. It never
// blocks: when the queue is full the thread waits in an overflow set,
// observed once the queue is drained (a kick was dropped before, and the
// thread waited for its next append or the next process).
func (e *Engine) afterAppend(threadID string) {
	if e.cfg.Observe == nil || !e.cfg.Observe.Background || e.bg.Err() != nil {
		return
	}
	if o, err := e.observer(); err != nil || o == nil || e.obs.queue == nil {
		return
	}
	s := &e.obs
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queued[threadID] {
		return
	}
	if s.queued == nil {
		s.queued = map[string]bool{}
	}
	s.queued[threadID] = true
	select {
	case s.queue <- threadID:
	default:
		if s.overflow == nil {
			s.overflow = map[string]bool{}
		}
		s.overflow[threadID] = true
	}
}

// fromOverflow takes a thread out of the overflow set; ok is false when it
// is empty.
func (s *observeState) fromOverflow() (id string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.overflow {
		delete(s.overflow, id)
		delete(s.queued, id)
		return id, true
	}
	return "", false
}

// observeLoop observes queued threads one at a time until Close. Between
// them it walks the threads an earlier process left unobserved (backlog):
// a queued thread goes first, so the walk never delays an append's
// observation by more than one thread's. While mnemo.db may not be
// written (backgroundHeld: known damaged, or replaced) it holds, before
// each thread, saying so once: Observe refuses then too, and an
// observation stored into the damaged file is lost when a backup is
// restored. It resumes when the file may be written again (the record of
// damage removed), with the thread it held and then a new walk of the
// backlog: the threads queued before the damage was found, and those
// whose observation the damage cut, are observed without a new append.
func (e *Engine) observeLoop(queue chan string) {
	left := &backlog{e: e}
	for {
		id, ok := e.nextToObserve(queue, left)
		if !ok {
			return
		}
		waited, ok := e.waitWritable(&e.obs.held, observeWorker) // background_hold.go
		if !ok {
			return
		}
		if waited {
			left = &backlog{e: e}
		}
		if id != "" {
			e.observeInBackground(id)
		}
	}
}

// nextToObserve returns the next thread to observe: a queued one, else one
// the full queue left in the overflow set, else one of the backlog (""
// when its page held none); it waits for the queue once the backlog is
// walked. ok is false once Close began.
func (e *Engine) nextToObserve(queue chan string, left *backlog) (id string, ok bool) {
	dequeued := func(id string) (string, bool) {
		e.obs.mu.Lock()
		delete(e.obs.queued, id)
		e.obs.mu.Unlock()
		return id, true
	}
	select {
	case <-e.bg.Done():
		return "", false
	case id := <-queue:
		return dequeued(id)
	default:
	}
	if id, ok := e.obs.fromOverflow(); ok {
		return id, true
	}
	if id, more := left.next(e.bg); more || id != "" {
		return id, e.bg.Err() == nil
	}
	select {
	case <-e.bg.Done():
		return "", false
	case id := <-queue:
		return dequeued(id)
	}
}

// observeInBackground observes thread id on the background context and
// logs what went wrong. A thread another process is observing is skipped
// (observe.Options.NoWait): that process observes it.
func (e *Engine) observeInBackground(id string) {
	_, err := e.observeFenced(e.bg, e.obs.obs, id, observe.Options{NoWait: true})
	switch {
	case errors.Is(err, observe.ErrThreadBusy):
		e.log.Info("background observation skipped: another process is observing the thread", "thread", id)
	case errors.Is(err, ErrObserveCancelled):
		e.log.Info("background observation cancelled by an erasure", "thread", id)
	case err != nil && !errors.Is(err, context.Canceled):
		e.log.Warn("background observation failed; will retry after the next append or restart", "thread", id, "err", err)
	}
}

// engineSource adapts the engine's messages to observe.PageSource.
type engineSource struct{ e *Engine }

var _ observe.PageSource = engineSource{}

func (s engineSource) Messages(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]observe.Turn, error) {
	return s.turns(messagesFromRows(s.e.ms.Messages(ctx, threadID, fromSeq, toSeq)))
}

// MessagesPage reads one bounded query (msgstore.MessagesPage).
func (s engineSource) MessagesPage(ctx context.Context, threadID string, fromSeq int64, limit int) ([]observe.Turn, error) {
	return s.turns(messagesFromRows(s.e.ms.MessagesPage(ctx, threadID, fromSeq, math.MaxInt64, limit, false)))
}

// turns converts messages to turns.
func (s engineSource) turns(ms []Message, err error) ([]observe.Turn, error) {
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	out := make([]observe.Turn, len(ms))
	for i, m := range ms {
		// The observer reads each turn's time in the resource's zone.
		m.CreatedAt = m.CreatedAt.In(s.e.location(m.ResourceID))
		t := observe.Turn{
			ID: m.ID, ThreadID: m.ThreadID, ResourceID: m.ResourceID, Seq: m.Seq, Role: m.Role,
			Name: m.Name, Content: m.Content, ToolCallID: m.ToolCallID, Tokens: m.Tokens, CreatedAt: m.CreatedAt,
		}
		for _, c := range m.ToolCalls {
			t.ToolCalls = append(t.ToolCalls, observe.ToolCall{ID: c.ID, Name: c.Name, Arguments: string(c.Arguments)})
		}
		out[i] = t
	}
	return out, nil
}
