package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/recall"
)

// LoadRequest asks for the memory part of the next prompt of a thread.
type LoadRequest struct {
	// RunID names this run; its memctx record is stored under
	// "<RunID>:memctx". Empty means a generated ULID.
	RunID string
	// ThreadID is the conversation. Required. A thread that does not exist
	// yet is the first turn of a new conversation (an agent often loads its
	// context before it appends the user's first message): it gives an empty
	// recent window, recall over the resource and the resource's working
	// memory still apply, and the run is recorded under ResourceID.
	ThreadID string
	// ResourceID is the thread's owner. Required when the thread does not
	// exist yet (else ErrThreadNotFound); when given for an existing thread
	// it must match.
	ResourceID string
	// Query drives recall. Empty means the newest user message of the thread.
	Query string
	// RecentN is the recent-window size: 0 means Config.RecentN, a negative
	// value turns the window off. The window always holds the pending turn
	// (the user turns that no assistant answer follows yet, and the tool
	// calls made for them so far; at most observe.MaxPendingTurns messages),
	// so it may hold more than RecentN messages.
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
	// working memory are never cut.
	TokenBudget int
	// ReplaceRun lets a run id that already has a memctx record be reused;
	// otherwise LoadContext returns journal.ErrRunExists.
	ReplaceRun bool
	// RequireThread refuses a thread that does not exist (ErrThreadNotFound,
	// nothing recorded) instead of starting a new conversation. Tools that
	// inspect stored threads set it (mnemo context); an agent loop leaves it
	// false, so that its first turn may load context before it appends.
	RequireThread bool
}

// LoadContext composes the memory part of the next prompt of a thread: the
// recent window, recall over older turns, observations and working memory
// (DESIGN.md, read path). It writes the run's memctx record to the journal
// before it returns.
//
// Errors: a *ValidationError for a bad id or option; ErrThreadNotFound, with
// nothing recorded, when the thread does not exist and no ResourceID says
// whose new conversation it starts, or when the thread was erased while its
// context was composed; ErrResourceMismatch when the thread belongs to
// another resource; journal.ErrRunOwned when the run
// id belongs to another thread or resource (also with ReplaceRun);
// journal.ErrRunExists when the run id was used before and ReplaceRun is
// false. Recall that fails degrades
// (memctx.retrieval says so) rather than failing the call.
func (e *Engine) LoadContext(ctx context.Context, req LoadRequest) (*Context, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if !ValidID(req.ThreadID) {
		return nil, invalid(-1, "threadId", idRule)
	}
	if req.ResourceID != "" && !ValidID(req.ResourceID) {
		return nil, invalid(-1, "resourceId", idRule)
	}
	// The record's time is when composition starts: replay reads working
	// memory as of this time.
	started := e.now().UTC()
	if req.RunID == "" {
		req.RunID = ulid.Make().String()
	} else if !ValidID(req.RunID) {
		return nil, invalid(-1, "runId", idRule)
	}
	recentN := req.RecentN
	if recentN == 0 {
		recentN = e.cfg.RecentN
	}
	recentN = max(recentN, 0)
	opts, err := e.recallOptions(req.Recall)
	if err != nil {
		return nil, err
	}
	th, err := e.GetThread(ctx, req.ThreadID)
	if err == nil && (req.ResourceID == "" || req.ResourceID == th.ResourceID) && e.threadDue(th, started) {
		// An expired thread that no sweep has erased yet is erased now: its
		// transcript never reaches a prompt after its lifetime (lifecycle.go).
		if err := e.expireForAppend(ctx, req.ThreadID, th.ResourceID, started); err != nil {
			return nil, err
		}
		th, err = e.GetThread(ctx, req.ThreadID)
	}
	switch {
	case errors.Is(err, ErrThreadNotFound):
		if req.RequireThread {
			return nil, err
		}
		if req.ResourceID == "" {
			return nil, fmt.Errorf("%w: %s (give resourceId to start a new conversation)", ErrThreadNotFound, req.ThreadID)
		}
		th = nil
	case err != nil:
		return nil, err
	case req.ResourceID != "" && req.ResourceID != th.ResourceID:
		return nil, notOwner(req.ThreadID, req.ResourceID)
	default:
		req.ResourceID = th.ResourceID
	}
	// A run id is one thread's (PutMemCtx claims it): another thread's is
	// refused even with ReplaceRun.
	if err := e.journal.CheckRun(ctx, req.RunID, req.ThreadID, req.ResourceID); err != nil {
		return nil, err
	}
	if !req.ReplaceRun {
		if _, err := e.journal.RawMemCtx(ctx, req.RunID); err == nil {
			return nil, fmt.Errorf("%w: %s", journal.ErrRunExists, req.RunID)
		}
	}

	// With observational memory on, the window also holds every message the
	// observer has not distilled yet: nothing unobserved is left out.
	if err := e.observeOnLoad(ctx, req.ThreadID); err != nil {
		return nil, err
	}
	// From reading turns to recording their previews, no erasure of the
	// resource may commit in between (fence.go).
	_, leave, err := e.erasure.fence.enter(ctx, resourceKey(req.ResourceID), false)
	if err != nil {
		return nil, err
	}
	defer leave()
	threadSeq, err := e.recheckThread(ctx, req.ThreadID, req.ResourceID, th != nil)
	if err != nil {
		return nil, err
	}
	windowN, err := e.observedRecentN(ctx, req.ThreadID, recentN)
	if err != nil {
		return nil, err
	}
	recent, err := e.recentMessages(ctx, req.ThreadID, windowN)
	if err != nil {
		return nil, err
	}
	if windowN > 0 {
		// The pending turn (the question no answer follows yet) is always
		// in the window, verbatim.
		if recent, err = e.withPendingTurn(ctx, req.ThreadID, recent, windowN); err != nil {
			return nil, err
		}
	}
	for _, m := range recent { // appended since the recheck
		threadSeq = max(threadSeq, m.Seq)
	}
	if req.Query == "" {
		if req.Query, err = e.lastUserText(ctx, req.ThreadID, recent); err != nil {
			return nil, err
		}
	}
	turns := make([]turn, 0, len(recent))
	exclude := make(map[string]bool, len(recent))
	for _, m := range recent {
		turns = append(turns, turn{Message: m, Recent: true})
		exclude[m.ID] = true
	}
	// Repair the recent window's lower edge first, so recall excludes what the
	// window pulled in, and what it dropped (a turn is listed once).
	pairs := e.newPairer()
	turns, drops, err := pairs.repairPairs(ctx, turns)
	if err != nil {
		return nil, err
	}
	for _, t := range turns {
		exclude[t.ID] = true
	}
	for _, d := range drops {
		exclude[d.ID] = true
	}

	retrieval := recall.Off()
	if opts != nil && req.Query != "" {
		recalled, status, err := e.recallTurns(ctx, recallQuery{
			Text: req.Query, ThreadID: req.ThreadID, ResourceID: req.ResourceID, Options: *opts, Exclude: exclude,
		})
		if err != nil {
			return nil, err
		}
		retrieval = status
		var more []dropped
		turns, more, err = pairs.repairPairs(ctx, append(turns, recalled...))
		if err != nil {
			return nil, err
		}
		drops = append(drops, more...)
	}
	obs, err := e.liveObservations(ctx, req.ThreadID, req.ResourceID)
	if err != nil {
		return nil, err
	}
	var obsDrops []journal.Ref
	if req.TokenBudget > 0 {
		var cut []dropped
		turns, cut = applyBudget(turns, req.TokenBudget-observationTokens(obs))
		drops = append(drops, cut...)
		obs, obsDrops = budgetObservations(obs, req.TokenBudget)
	}
	turns = withUnsettled(layout(turns, req.ThreadID), e.unsettledText())
	loc := e.location(req.ResourceID)
	obsText, obsRefs := observe.Render(obs, loc), observe.Refs(obs)

	wmText, tools, wmChars, err := e.workingMemoryPart(ctx, req.ThreadID, req.ResourceID)
	if err != nil {
		return nil, err
	}
	c := compose(turns, obsText, wmText, tools, loc)
	c.RunID = req.RunID
	rec := &journal.MemCtx{
		RunID:              req.RunID,
		ThreadID:           req.ThreadID,
		ResourceID:         req.ResourceID,
		Query:              e.redactor.Redact(req.Query), // an explicit query is caller text: redact before it is stored
		Options:            memctxOptions(e.redactor, recentN, opts, req.TokenBudget),
		Recalled:           []journal.Ref{},
		Recent:             []journal.Ref{},
		Dropped:            []journal.Ref{},
		Observations:       obsRefs,
		ObservationCount:   len(obsRefs),
		WorkingMemoryChars: wmChars,
		Tokens:             partTokens(turns, obs, wmText, tools),
		Retrieval:          journalRetrieval(retrieval),
		PromptHash:         c.PromptHash,
		Render:             RenderVersion,
		TimeZone:           render.ZoneName(loc),
		CreatedAt:          started.Format(journal.TimeLayout),
		ThreadSeq:          &threadSeq,
	}
	if rec.Observations == nil {
		rec.Observations = []journal.ObservationRef{}
	}
	rec.Unsettled = unsettledRefs(turns)
	for _, t := range turns {
		if t.Reason == journal.ReasonUnsettled {
			continue // listed in rec.Unsettled: not a stored turn
		}
		if t.Recent {
			rec.RecentCount++
			if len(rec.Recent) < journal.RecentCap {
				rec.Recent = append(rec.Recent, ref(t, ""))
			}
		} else {
			rec.Recalled = append(rec.Recalled, ref(t, t.Reason))
		}
	}
	sort.SliceStable(drops, func(i, j int) bool {
		if drops[i].ThreadID != drops[j].ThreadID {
			return drops[i].ThreadID < drops[j].ThreadID
		}
		return drops[i].Seq < drops[j].Seq
	})
	for _, d := range drops {
		rec.Dropped = append(rec.Dropped, ref(d.turn, d.why))
	}
	rec.Dropped = append(rec.Dropped, obsDrops...)
	rec.DroppedCount = len(rec.Dropped)
	if err := e.journal.PutMemCtx(ctx, rec, req.ReplaceRun); err != nil {
		return nil, err
	}
	if !e.cfg.Retention.IsZero() {
		if _, err := e.journal.Prune(ctx, req.ThreadID, e.cfg.Retention); err != nil {
			e.log.WarnContext(ctx, "prune runs", "thread", req.ThreadID, "err", err)
		}
	}
	c.MemCtx = rec
	return c, nil
}

// recallOptions is the run's recall options resolved (recall.Options.Resolve):
// o, or Config.Recall when o is nil; nil when recall is off. Invalid options
// are a *ValidationError naming "recall".
func (e *Engine) recallOptions(o *recall.Options) (*recall.Options, error) {
	if o == nil {
		o = e.cfg.Recall
	}
	if o == nil {
		return nil, nil
	}
	r, err := o.Resolve()
	if err != nil {
		return nil, invalid(-1, "recall", "%v", err)
	}
	return &r, nil
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

// observationTokens estimates the tokens of rendered observations with the
// one estimator (internal/tokens), plus 16 for each one's provenance line.
func observationTokens(obs []observe.Observation) int {
	n := 0
	for _, o := range obs {
		n += tokens.Text(o.Content) + 16
	}
	return n
}

// budgetObservations drops the oldest observations (by creation) until the
// rest fit in budget tokens, and returns the kept ones in their order and the
// memctx entries of the dropped ones (reason "budget"; the entry's messageId
// is the observation id, its seq the first seq it covers).
func budgetObservations(obs []observe.Observation, budget int) ([]observe.Observation, []journal.Ref) {
	if observationTokens(obs) <= budget {
		return obs, nil
	}
	byAge := make([]int, len(obs))
	for i := range byAge {
		byAge[i] = i
	}
	sort.SliceStable(byAge, func(a, b int) bool { return obs[byAge[a]].CreatedAt.Before(obs[byAge[b]].CreatedAt) })
	cut := map[int]bool{}
	used := observationTokens(obs)
	for _, i := range byAge {
		if used <= budget {
			break
		}
		cut[i] = true
		used -= observationTokens(obs[i : i+1])
	}
	var kept []observe.Observation
	var out []journal.Ref
	for i, o := range obs {
		if !cut[i] {
			kept = append(kept, o)
			continue
		}
		out = append(out, journal.Ref{ThreadID: o.ThreadID, Seq: o.FromSeq, MessageID: o.ID, Role: o.Level,
			Preview: Preview(Message{Content: o.Content}), Reason: journal.ReasonBudget})
	}
	return kept, out
}

// applyBudget keeps the recalled turns within budget estimated tokens. It
// drops whole runs of consecutive recalled turns of a thread (a hit with its
// range neighbours and repairs) from the lowest-scored run up, so no tool-call
// group is split. Recent turns are never dropped.
func applyBudget(turns []turn, budget int) ([]turn, []dropped) {
	type run struct {
		idx    []int
		score  float64
		tokens int
	}
	var recalled []int
	used := 0
	for i, t := range turns {
		if !t.Recent {
			recalled = append(recalled, i)
			used += t.Tokens
		}
	}
	if used <= budget {
		return turns, nil
	}
	sort.Slice(recalled, func(a, b int) bool {
		x, y := turns[recalled[a]], turns[recalled[b]]
		if x.ThreadID != y.ThreadID {
			return x.ThreadID < y.ThreadID
		}
		return x.Seq < y.Seq
	})
	var runs []*run
	for n, i := range recalled {
		t := turns[i]
		if n == 0 || turns[recalled[n-1]].ThreadID != t.ThreadID || turns[recalled[n-1]].Seq+1 != t.Seq {
			runs = append(runs, &run{score: math.Inf(-1)})
		}
		r := runs[len(runs)-1]
		r.idx = append(r.idx, i)
		r.tokens += t.Tokens
		if t.Score != nil && *t.Score > r.score {
			r.score = *t.Score
		}
	}
	sort.SliceStable(runs, func(a, b int) bool { return runs[a].score < runs[b].score })
	cut := map[int]bool{}
	for _, r := range runs {
		if used <= budget {
			break
		}
		for _, i := range r.idx {
			cut[i] = true
		}
		used -= r.tokens
	}
	var kept []turn
	var out []dropped
	for i, t := range turns {
		if cut[i] {
			out = append(out, dropped{turn: t, why: journal.ReasonBudget})
		} else {
			kept = append(kept, t)
		}
	}
	return kept, out
}
