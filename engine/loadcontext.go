package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
)

// LoadRequest asks for the memory part of the next prompt of a thread.
type LoadRequest struct {
	// RunID names this run; its memctx record is stored under
	// "<RunID>:memctx". Empty means a generated ULID; a given one must be
	// ValidNewID (not "." or ".."), else a *ValidationError on runId.
	RunID string
	// ThreadID is the conversation. Required. A thread that does not exist
	// yet is the first turn of a new conversation (an agent often loads its
	// context before it appends the user's first message): it gives an empty
	// recent window, recall over the resource and the resource's working
	// memory still apply, and the run is recorded under ResourceID.
	ThreadID string
	// ResourceID is the thread's owner. Required when the thread does not
	// exist yet (else ErrThreadNotFound); when given for an existing thread
	// it must match. The run of a thread that does not exist yet is new
	// data under both: ThreadID and ResourceID must then be ValidNewID,
	// else a *ValidationError on threadId or resourceId.
	ResourceID string
	// Query drives recall. Empty means the newest user message of the
	// thread (its first Config.Limits.MaxQueryBytes). An explicit query
	// longer than that is refused: ErrQueryTooLong; one holding a NUL byte
	// or invalid UTF-8 is a *ValidationError on query.
	Query string
	// RecentN is the recent-window size: 0 means Config.RecentN, a negative
	// value turns the window off, pending turn and unobserved messages
	// included (recall alone). Otherwise the window always holds the
	// pending turn (the user turns that no assistant answer follows yet,
	// and the tool calls made for them so far; at most
	// observe.MaxPendingTurns messages),
	// so it may hold more than RecentN messages. With observational memory
	// on it also holds the unobserved messages, up to
	// ObserveConfig.MaxUnobservedTokens (memctx lists those left out as
	// dropped, reason "unobserved").
	RecentN int
	// Recall overrides Config.Recall for this run; nil means Config.Recall,
	// and recall is off when both are nil. Zero fields mean their defaults
	// (recall.Options.Resolve: TopK 0 means recall.DefaultTopK).
	Recall *recall.Options
	// TokenBudget, when positive, bounds the estimated tokens (about 4 bytes
	// each) of what memory adds beyond the recent window: the recalled turns
	// and the rendered observations. Over budget, the lowest-scored runs of
	// recalled turns go first, then the oldest observations; each removal is
	// recorded in memctx.dropped with reason "budget". The recent window and
	// working memory are never cut by it (the window's unobserved part has
	// its own bound, ObserveConfig.MaxUnobservedTokens). Zero means no
	// budget; a negative one is refused (a *ValidationError on
	// "tokenBudget", nothing recorded), as the server and the CLI refuse it.
	TokenBudget int
	// ReplaceRun lets a run id that already has a memctx record be reused;
	// otherwise LoadContext returns journal.ErrRunExists.
	ReplaceRun bool
	// RequireThread refuses a thread that does not exist (ErrThreadNotFound,
	// nothing recorded) instead of starting a new conversation. Tools that
	// inspect stored threads set it (mnemo context); an agent loop leaves it
	// false, so that its first turn may load context before it appends.
	RequireThread bool
	// At is when the question is asked: the query's relative dates
	// ("yesterday", "last week", "two months ago") are resolved against it
	// in whole days of the resource's time zone (Config.ResourceTimeZone,
	// TimeZone; UTC by default) and scored like the dates it names
	// (recall.Query.At). Zero means the engine's clock when composition
	// starts (memctx.createdAt). memctx.queryAt records the time used.
	At time.Time
}

// LoadContext composes the memory part of the next prompt of a thread: the
// recent window, recall over older turns, observations and working memory
// (DESIGN.md, read path). It writes the run's memctx record to the journal
// before it returns.
//
// Errors: a *ValidationError for a bad id or option (ErrQueryTooLong for
// a query over Config.Limits.MaxQueryBytes); ErrThreadNotFound, with
// nothing recorded, when the thread does not exist and no ResourceID says
// whose new conversation it starts, or when the thread was erased while its
// context was composed; ErrResourceMismatch when the thread belongs to
// another resource; journal.ErrRunOwned when the run
// id belongs to another thread or resource (also with ReplaceRun;
// journal.ErrRunErased, which matches it, when the run's thread was
// erased); an
// *AnswerTooLargeError (ErrAnswerTooLarge), with nothing recorded, when
// the recent window (with its pending turn) and the recalled turns pass
// Limits.MaxAnswerBytes (counted before any TokenBudget cut, as they are
// read; its Unobserved or Pending says when no request field shrinks
// the window);
// journal.ErrRunExists when the run id was used before and ReplaceRun is
// false. Recall that fails degrades
// (memctx.retrieval says so) rather than failing the call.
//
// A write (the run's claim, its memctx record) that finds the disk full
// is ErrNoSpace, nothing recorded. Once SQLite has reported a damaged page
// of mnemo.db since Open, ErrDatabaseCorrupt, nothing composed or
// recorded: a record written into the damaged file would be lost with it
// when a backup is restored, and no context is answered without its
// record.
func (e *Engine) LoadContext(ctx context.Context, req LoadRequest) (*Context, error) {
	c, err := e.loadContext(ctx, req)
	return c, e.writeFailed(err) // disk_space.go
}

func (e *Engine) loadContext(ctx context.Context, req LoadRequest) (*Context, error) {
	l, err := e.startLoad(ctx, req)
	if err != nil {
		return nil, err
	}
	// With observational memory on, the window also holds the messages the
	// observer has not distilled yet, up to ObserveConfig.MaxUnobservedTokens.
	if err := e.observeOnLoad(ctx, l.req.ThreadID); err != nil {
		return nil, err
	}
	// From reading turns to recording their previews, no erasure of the
	// resource may commit in between (fence.go).
	_, leave, err := e.erasure.fence.enter(ctx, resourceKey(l.req.ResourceID), false)
	if err != nil {
		return nil, err
	}
	defer leave()
	stages := []func(context.Context) error{
		l.window,        // the recent window and the pending turn
		l.pairing,       // tool-call pairs repaired, over the window and then what recall adds (l.recall)
		l.leftOut,       // the unobserved turns over ObserveConfig.MaxUnobservedTokens, listed as dropped
		l.observations,  // the live observations of the thread or resource
		l.budget,        // LoadRequest.TokenBudget: recalled runs, then observations, cut
		l.workingMemory, // the working memory and the tools the context offers
	}
	for _, stage := range stages {
		if err := stage(ctx); err != nil {
			e.setObserveDue(ctx, l.req.ThreadID, err)
			return nil, err
		}
	}
	return l.record(ctx) // memctx.go
}

// setObserveDue sets ObserveDue and Observable of err, an
// *AnswerTooLargeError with Unobserved, from the observer's plan for
// threadID, so that its hint is true: without Force, Engine.Observe
// observes nothing under the threshold, and with it nothing in the
// observer's recent window (also render-only, with no model: what
// `mnemo observe` would do). Left zero when the plan fails.
func (e *Engine) setObserveDue(ctx context.Context, threadID string, err error) {
	var at *AnswerTooLargeError
	if !errors.As(err, &at) || at.Unobserved == 0 {
		return
	}
	obs, oerr := e.planner()
	if oerr != nil || obs == nil {
		return
	}
	if p, perr := obs.Plan(ctx, threadID); perr == nil {
		at.ObserveDue, at.Observable = p.Due, p.PendingTurns
	}
}

// load is one LoadContext call on its way through the stages: the request
// as resolved by startLoad, then what each stage adds.
type load struct {
	e       *Engine
	req     LoadRequest
	started time.Time       // when composition started: the record's time
	recentN int             // the window size asked for (0: off)
	opts    *recall.Options // resolved (recallOptions); nil: recall off
	existed bool            // the thread existed when LoadContext started

	threadSeq   int64          // the thread's last seq the window saw
	recent      []Message      // the window stage's messages
	windowBytes int            // their text as read (msgstore.Message.Size): recall and pairing read within Limits.MaxAnswerBytes less it
	unobserved  int            // the window's size when the observer's unobserved tail made it larger than recentN (0: it did not)
	answer      pairBudget     // Limits.MaxAnswerBytes as the window, pairing and recall spend it (pairing stage)
	turns       []turn         // the turns of the prompt, in no particular order
	drops       []dropped      // turns left out (pairing, unobserved, budget)
	cut         *unobservedCut // the window left unobserved turns out (unobserved.go)
	unlisted    int            // of those, how many memctx counts without listing
	retrieval   recall.Retrieval

	obs      []observe.Observation
	obsDrops []journal.Ref // observations the budget cut

	wm wmPart // the working-memory stage's
}

// startLoad checks the request and resolves its defaults: ids, options, the
// thread (an expired one is erased first) and its resource, and whether the
// run id may be used.
func (e *Engine) startLoad(ctx context.Context, req LoadRequest) (*load, error) {
	if err := e.checkWritable(ctx); err != nil {
		return nil, err
	}
	if !ValidID(req.ThreadID) {
		return nil, badID(-1, "threadId", req.ThreadID, false)
	}
	if req.ResourceID != "" && !ValidID(req.ResourceID) {
		return nil, badID(-1, "resourceId", req.ResourceID, false)
	}
	if err := e.checkQuery(req.Query); err != nil {
		return nil, err
	}
	if req.TokenBudget < 0 { // read as no budget, as 0 is
		return nil, invalid(-1, "tokenBudget", "must be 0 (no budget) or more, got %d", req.TokenBudget)
	}
	// The record's time is when composition starts: replay reads working
	// memory as of this time.
	l := &load{e: e, req: req, started: e.now().UTC()}
	if l.req.At.IsZero() {
		l.req.At = l.started
	}
	l.req.At = l.req.At.UTC()
	if l.req.RunID == "" {
		l.req.RunID = ulid.Make().String()
	} else if !e.newID(l.req.RunID) { // the run's record is new data
		return nil, badID(-1, "runId", l.req.RunID, true)
	} else if err := checkRunID(l.req.RunID); err != nil {
		return nil, err
	}
	l.recentN = req.RecentN
	if l.recentN == 0 {
		l.recentN = e.cfg.RecentN
	}
	l.recentN = max(l.recentN, 0)
	var err error
	if l.opts, err = e.recallOptions(req.Recall); err != nil {
		return nil, err
	}
	if err := l.resolveThread(ctx); err != nil {
		return nil, err
	}
	// A run id is one thread's (PutMemCtx claims it): another thread's is
	// refused even with ReplaceRun, a recorded one without it.
	if err := e.journal.CheckNewRun(ctx, l.req.RunID, l.req.ThreadID, l.req.ResourceID, l.req.ReplaceRun); err != nil {
		return nil, err
	}
	return l, nil
}

// resolveThread finds the thread and its resource (l.req.ResourceID), or
// starts a new conversation of the given resource.
func (l *load) resolveThread(ctx context.Context) error {
	e, req := l.e, &l.req
	th, err := e.GetThread(ctx, req.ThreadID)
	if err == nil && (req.ResourceID == "" || req.ResourceID == th.ResourceID) && e.threadDue(th, l.started) {
		// An expired thread that no sweep has erased yet is erased now: its
		// transcript never reaches a prompt after its lifetime (lifecycle.go).
		sw := e.newSweep()
		if err := e.expireForAppend(ctx, sw, req.ThreadID, th.ResourceID, l.started); err != nil {
			return err
		}
		sw.finishLogged(ctx, "load context")
		th, err = e.GetThread(ctx, req.ThreadID)
	}
	switch {
	case errors.Is(err, ErrThreadNotFound):
		if req.RequireThread {
			return err
		}
		if req.ResourceID == "" {
			return fmt.Errorf("%w: %s (give resourceId to start a new conversation)", ErrThreadNotFound, req.ThreadID)
		}
		// A new conversation's run is new data filed under its thread and
		// resource: they are ValidNewID, as an append's (a stored thread
		// "..", of a store written before, is still loaded).
		if !e.newID(req.ThreadID) {
			return badID(-1, "threadId", req.ThreadID, true)
		}
		if !e.newID(req.ResourceID) {
			return badID(-1, "resourceId", req.ResourceID, true)
		}
	case err != nil:
		return err
	case req.ResourceID != "" && req.ResourceID != th.ResourceID:
		return notOwner(req.ThreadID, req.ResourceID)
	default:
		req.ResourceID = th.ResourceID
		l.existed = true
	}
	return nil
}

// window is the window stage: the thread rechecked inside the fence, the
// recent window (with the unobserved tail and the pending turn) and the
// query it implies when none was given.
func (l *load) window(ctx context.Context) error {
	e, req := l.e, &l.req
	var err error
	if l.threadSeq, err = e.recheckThread(ctx, req.ThreadID, req.ResourceID, l.existed); err != nil {
		return err
	}
	windowN, cut, err := e.windowSize(ctx, req.ThreadID, l.recentN) // unobserved.go
	if err != nil {
		return err
	}
	if windowN > l.recentN {
		l.unobserved = windowN // every message of the window is unobserved
	}
	if l.recent, l.windowBytes, err = e.recentMessages(ctx, req.ThreadID, windowN, e.limits.MaxAnswerBytes); err != nil {
		return l.windowTooLarge(err)
	}
	if windowN > 0 {
		// The pending turn (the question no answer follows yet) is always
		// in the window, verbatim, and counted with it.
		if l.recent, l.windowBytes, err = e.withPendingTurn(ctx, req.ThreadID, l.recent, windowN, l.windowBytes); err != nil {
			return err
		}
	}
	if cut != nil && len(l.recent) > 0 && l.recent[0].Seq > cut.watermark+1 {
		l.cut = cut
	}
	for _, m := range l.recent { // appended since the recheck
		l.threadSeq = max(l.threadSeq, m.Seq)
	}
	if req.Query == "" {
		if req.Query, err = e.lastUserText(ctx, req.ThreadID, l.recent); err != nil {
			return err
		}
		req.Query = e.cutQuery(req.Query)
	}
	return nil
}

// pairing is the pairing stage: the window's tool-call pairs are repaired
// first (its lower edge extends back to a call), so that recall excludes
// what the window pulled in and what it dropped (a turn is listed once);
// then recall's turns are repaired with it (pairing.go).
func (l *load) pairing(ctx context.Context) error {
	window := make([]turn, 0, len(l.recent))
	for _, m := range l.recent {
		window = append(window, turn{Message: m, Recent: true})
	}
	l.retrieval = recall.Off()
	var recalled func(context.Context, map[string]bool) ([]turn, error)
	if l.opts != nil && l.req.Query != "" {
		recalled = l.recall
	}
	// The window's text is counted; the calls and results pairing reads
	// for the window (its lower edge) shrink with recentN, those for the
	// recalled turns with recall's fields too (recall sets them).
	l.answer = pairBudget{limit: l.e.limits.MaxAnswerBytes, used: l.windowBytes, fields: l.windowFields(), unobserved: l.unobserved}
	p := l.e.newPairer()
	p.budget = &l.answer
	var err error
	l.turns, l.drops, err = p.repairPairs(ctx, window, recalled)
	return err
}

// windowFields are the request fields that shrink the recent window:
// recentN, or none when the observer's unobserved tail sized it
// (l.unobserved), which recentN does not shrink.
func (l *load) windowFields() []string {
	if l.unobserved > 0 {
		return nil
	}
	return []string{"recentN"}
}

// windowTooLarge is err, the window's read, saying so when the window was
// the observer's unobserved tail: an *AnswerTooLargeError naming no field
// and the messages the observer has not distilled, not recentN.
func (l *load) windowTooLarge(err error) error {
	var at *AnswerTooLargeError
	if l.unobserved > 0 && errors.As(err, &at) {
		return &AnswerTooLargeError{Limit: at.Limit, Unobserved: l.unobserved}
	}
	return err
}

// recall is the recall stage: hits and their neighbours over the resource,
// excluding the turns in exclude (the window's); it sets l.retrieval.
func (l *load) recall(ctx context.Context, exclude map[string]bool) ([]turn, error) {
	l.answer.fields = append([]string{"recall.topK", "recall.messageRange"}, l.windowFields()...)
	turns, status, err := l.e.recallTurns(ctx, recallQuery{
		Text: l.req.Query, ThreadID: l.req.ThreadID, ResourceID: l.req.ResourceID, Options: *l.opts, Exclude: exclude, At: l.req.At,
	}, &l.answer)
	if err != nil {
		return nil, err
	}
	l.retrieval = status
	return turns, nil
}

// observations is the observations stage (observe.go's liveObservations).
func (l *load) observations(ctx context.Context) error {
	var err error
	l.obs, err = l.e.liveObservations(ctx, l.req.ThreadID, l.req.ResourceID)
	return err
}

// budget is the budget stage: with a TokenBudget, the recalled turns are
// cut to what the observations leave of it, then the observations to the
// budget (budget.go). The recent window and working memory are never cut.
func (l *load) budget(context.Context) error {
	if l.req.TokenBudget <= 0 {
		return nil
	}
	var cut []dropped
	l.turns, cut = applyBudget(l.turns, l.req.TokenBudget-observationTokens(l.obs))
	l.drops = append(l.drops, cut...)
	l.obs, l.obsDrops = budgetObservations(l.obs, l.req.TokenBudget)
	return nil
}

// workingMemory is the working-memory stage: the rendered state of the
// thread (or resource), the tools the context offers, and the rendered
// size (working.go).
func (l *load) workingMemory(ctx context.Context) error {
	var err error
	l.wm, err = l.e.workingMemoryPart(ctx, l.req.ThreadID, l.req.ResourceID, wmRead{})
	return err
}

// recallOptions is the run's recall options resolved (recall.Options.Resolve):
// o, or Config.Recall when o is nil; nil when recall is off. Invalid options
// are a *ValidationError naming the field ("recall.topK",
// "recall.filter"); Open has refused an invalid Config.Recall.
func (e *Engine) recallOptions(o *recall.Options) (*recall.Options, error) {
	if o == nil {
		o = e.cfg.Recall
	}
	if o == nil {
		return nil, nil
	}
	r, err := resolveRecall(*o, false)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// resolveRecall is o.Resolve with its errors as a *ValidationError naming
// the field as a request's ("recall.topK", "recall.filter") or, config
// set, as Config.Recall's ("Recall.TopK", "Recall.Filter").
func resolveRecall(o recall.Options, config bool) (recall.Options, error) {
	name := func(field string) string {
		if !config {
			return "recall." + field
		}
		return "Recall." + strings.ToUpper(field[:1]) + field[1:]
	}
	r, err := o.Resolve()
	var oe *recall.OptionError
	var fe *recall.FilterError
	switch {
	case errors.As(err, &oe):
		return r, invalid(-1, name(oe.Field), "%s", oe.Rule)
	case errors.As(err, &fe): // "invalid recall.filter: at seq ($like): …", said once
		return r, invalid(-1, name("filter"), "%s", strings.TrimPrefix(fe.Error(), "recall: invalid filter "))
	case err != nil && config:
		return r, invalid(-1, "Recall", "%s", strings.TrimPrefix(err.Error(), "recall: "))
	case err != nil:
		return r, invalid(-1, "recall", "%s", strings.TrimPrefix(err.Error(), "recall: "))
	}
	return r, nil
}

// recheckThread checks, inside the fence, that the thread is as LoadContext
// found it before: an erasure of the thread that committed in between
// leaves it no run to record (ErrThreadNotFound;
// TestLoadContextRacesDeleteThread), and a new thread that an Append
// created meanwhile must be the resource's. It returns the thread's last
// seq (0 when it has none yet).
func (e *Engine) recheckThread(ctx context.Context, threadID, resourceID string, existed bool) (int64, error) {
	th, err := e.GetThread(ctx, threadID)
	switch {
	case errors.Is(err, ErrThreadNotFound) && !existed:
		return 0, nil
	case errors.Is(err, ErrThreadNotFound), err == nil && existed && th.ResourceID != resourceID:
		return 0, fmt.Errorf("%w: %s was erased while its context was composed", ErrThreadNotFound, threadID)
	case err != nil:
		return 0, err
	case th.ResourceID != resourceID:
		return 0, notOwner(threadID, resourceID)
	}
	return th.LastSeq, nil
}

// lastUserText is the content of the newest user message of the thread.
func (e *Engine) lastUserText(ctx context.Context, threadID string, recent []Message) (string, error) {
	for i := len(recent) - 1; i >= 0; i-- {
		if recent[i].Role == RoleUser {
			return recent[i].Content, nil
		}
	}
	s, err := e.ms.LastUserContent(ctx, threadID)
	if err != nil {
		return "", fmt.Errorf("engine: %w", err)
	}
	return s, nil
}
