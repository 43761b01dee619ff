package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

func (s *Server) loadContext(r *http.Request, p *Principal) (any, error) {
	var b ContextBody
	if err := decodeBody(r, &b); err != nil {
		return nil, err
	}
	return s.tenant(p).LoadContext(r.Context(), b)
}

// LoadContext composes the memory part of a prompt of a thread of one of
// the principal's resources, as POST /v1/context does. A body without
// resourceId uses the stored thread's resource, or for a new thread the
// token's only resource (DefaultResource); for a new thread of an
// operator or a token of several resources it is not found. A resourceId
// "." or ".." the token is not given is the id rule's 400 (NewID).
// Errors: those of POST /v1/context, as Describe words them (a missing
// threadId a 400, a thread or resource not the principal's matching
// ErrNotFound, the engine's errors; a run id of an erased thread is the
// 409 runErasedConflict words).
func (t Tenant) LoadContext(ctx context.Context, b ContextBody) (*Context, error) {
	if b.ThreadID == "" {
		return nil, errorf(kindInvalid, "threadId", "threadId is required")
	}
	if err := checkTime("at", b.At); err != nil {
		return nil, err
	}
	if b.TokenBudget < 0 {
		return nil, errorf(kindInvalid, "tokenBudget", "tokenBudget must be >= 0 (0: no budget), got %d", b.TokenBudget)
	}
	if b.ResourceID != "" {
		if err := t.Resource("resourceId", b.ResourceID); err != nil {
			return nil, dotResource(b.ResourceID, err)
		}
	}
	th, err := t.ThreadIn(ctx, "threadId", b.ThreadID)
	switch {
	case errors.Is(err, ErrNotFound):
		if b.ResourceID == "" {
			// A new (or foreign) thread without a resource: the token's
			// only resource, as for search and append (a foreign thread
			// then fails below as not found, as a taken id does). Else the
			// engine's answer would say "resourceId is required", which
			// tells an unknown thread from a foreign one; both are not
			// found.
			if b.ResourceID, _ = t.DefaultResource(ctx, "threadId", "", ""); b.ResourceID == "" {
				return nil, err
			}
		}
	case err != nil:
		return nil, err
	case b.ResourceID != "" && th.ResourceID != b.ResourceID:
		return nil, ThreadConflict("resourceId", b.ThreadID)
	}
	if err := t.RunIDFree(ctx, b.RunID); err != nil {
		return nil, err
	}
	c, err := t.Engine.LoadContext(ctx, engine.LoadRequest{
		RunID: b.RunID, ThreadID: b.ThreadID, ResourceID: b.ResourceID, Query: b.Query, RecentN: b.RecentN,
		Recall: b.Recall, TokenBudget: b.TokenBudget, ReplaceRun: b.ReplaceRun, At: timeOrZero(b.At),
	})
	if errors.Is(err, engine.ErrResourceMismatch) || errors.Is(err, engine.ErrThreadNotFound) {
		// ErrThreadNotFound: the thread found above was erased (or expired)
		// before the engine recorded the run; nothing was recorded.
		return nil, notFound("thread", b.ThreadID)
	}
	if errors.Is(err, journal.ErrRunErased) {
		return nil, t.runErasedConflict(ctx, b.RunID, err)
	}
	if err != nil {
		return nil, err
	}
	out := toContext(c)
	out.Notice = RecallOffNotice(b.Query, c.MemCtx, `give "recall": {} (the defaults) or "recall": {"topK": K}`)
	return out, nil
}

// dotResource is the error of a context naming a resourceId the token is
// not given (err, not found): for "." or "..", which no token file binds
// and no new conversation may be filed under, the id rule's 400 naming
// resourceId, whoever asks, as an append's (it was a 404 "resource not
// found"); else err.
func dotResource(resourceID string, err error) error {
	if errors.Is(err, ErrNotFound) && !engine.ValidNewID(resourceID) {
		return NewID("resourceId", resourceID)
	}
	return err
}

func (s *Server) search(r *http.Request, p *Principal) (any, error) {
	var b SearchBody
	if err := decodeBody(r, &b); err != nil {
		return nil, err
	}
	return s.tenant(p).Search(r.Context(), b)
}

// Search runs a recall search over one of the principal's resources and
// returns the hits with their text, as POST /v1/search does. A body
// without resourceId searches the resource DefaultResource gives (the
// thread's, else the token's only one); when none decides, the error
// names resourceId.
func (t Tenant) Search(ctx context.Context, b SearchBody) (*engine.SearchResult, error) {
	rid, err := t.RequireResource(ctx, "threadId", b.ThreadID, b.ResourceID)
	if err != nil {
		return nil, err
	}
	b.ResourceID = rid
	if err := t.Resource("resourceId", b.ResourceID); err != nil {
		return nil, err
	}
	if b.Query == "" {
		return nil, errorf(kindInvalid, "query", "query is required")
	}
	if strings.TrimSpace(b.Query) == "" {
		// As `mnemo search "  "` refuses it: no term to match, and the
		// vector channel ranked every turn by its likeness to blanks.
		return nil, errorf(kindInvalid, "query", "query is white space only: give the words to search for")
	}
	if err := checkTime("at", b.At); err != nil {
		return nil, err
	}
	if b.ThreadID != "" {
		th, err := t.ThreadIn(ctx, "threadId", b.ThreadID)
		if err != nil {
			return nil, err
		}
		if th.ResourceID != b.ResourceID {
			return nil, ThreadConflict("threadId", b.ThreadID)
		}
	}
	req := engine.SearchRequest{ResourceID: b.ResourceID, ThreadID: b.ThreadID, Query: b.Query, At: timeOrZero(b.At)}
	if b.Recall != nil {
		req.Options = *b.Recall
	}
	if b.ThreadID != "" {
		// A thread given is the thread searched (as memory_search's
		// threadId and mnemo search --thread): before, it was checked and
		// then ignored unless recall.scope said "thread".
		switch req.Options.Scope {
		case "":
			req.Options.Scope = recall.ScopeThread
		case recall.ScopeResource:
			return nil, errorf(kindInvalid, "threadId", "threadId confines the search to a thread, recall.scope %q searches the whole resource: leave one out", req.Options.Scope)
		}
	}
	res, err := t.Engine.SearchMessages(ctx, req)
	if err != nil {
		return nil, err
	}
	res.Hits = nonNil(res.Hits)
	return res, nil
}

func (s *Server) listRuns(r *http.Request, p *Principal) (any, error) {
	ctx := r.Context()
	q := r.URL.Query()
	f := journal.RunFilter{ResourceID: q.Get("resourceId"), ThreadID: q.Get("threadId")}
	limit, err := IntParam(r, "limit", 100, 1, journal.MaxRunsLimit)
	if err != nil {
		return nil, err
	}
	offset, err := intParam(r, "offset", 0, 0)
	if err != nil {
		return nil, err
	}
	f.Limit, f.Offset = int(limit)+1, int(offset)
	cursor, err := PageCursor(q)
	if err != nil {
		return nil, err
	}
	if q.Has("cursor") {
		k, err := ParseRunCursor(cursor)
		if err != nil {
			return nil, err
		}
		f.Before = &k
	}
	f, stored, err := s.runsOf(ctx, p, f)
	if err != nil {
		return nil, err
	}
	runs, err := s.cfg.Engine.Journal().ListRuns(ctx, f)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 && f.ThreadID != "" && !stored && f.Before == nil && f.Offset == 0 {
		// Neither a thread of the caller's nor a run of theirs on the id:
		// not found, as a thread id is elsewhere (a mistyped id is not
		// an empty listing).
		return nil, notFound("thread", f.ThreadID)
	}
	out := RunList{Runs: make([]RunInfo, 0, min(len(runs), int(limit)))}
	for _, ri := range runs[:min(len(runs), int(limit))] {
		out.Runs = append(out.Runs, RunInfoOf(ri))
	}
	if len(runs) > int(limit) {
		out.NextCursor = RunCursor(runs[limit-1].Key())
	}
	return out, nil
}

// runsOf sets the resource of a runs listing f as the caller may see it:
// the resourceId given, else the thread's when threadId names a stored
// thread of the caller's, else the token's only resource (the rule of
// Tenant.DefaultResource); an operator naming no resource lists every
// resource's (of a thread id, also the runs other resources recorded on
// it before its thread existed). A token of several resources naming no resource nor a
// stored thread of its own is refused naming resourceId
// (Tenant.RequireResource). stored reports whether threadId named a
// stored thread of the caller's: one that is not (none yet, or another
// tenant's created after the caller's run on the id) lists the caller's
// runs on the id, as the listing without threadId shows them.
func (s *Server) runsOf(ctx context.Context, p *Principal, f journal.RunFilter) (_ journal.RunFilter, stored bool, err error) {
	t := s.tenant(p)
	given := f.ResourceID != ""
	if given {
		if err := t.Resource("resourceId", f.ResourceID); err != nil {
			return f, false, err
		}
	}
	if f.ThreadID != "" {
		th, err := t.ThreadIn(ctx, "threadId", f.ThreadID)
		switch {
		case err == nil:
			stored = true
			if f.ResourceID == "" {
				f.ResourceID = th.ResourceID
			}
		case !errors.Is(err, ErrNotFound):
			return f, false, err
		}
	}
	if p.All {
		// An operator's listing of a thread id shows every resource's runs
		// on it: another resource's, recorded before the thread existed,
		// are that resource's and listed too (journal.RunFilter.EveryResource).
		if f.ThreadID != "" && !given {
			f.ResourceID, f.EveryResource = "", true
			return f, stored, nil
		}
		f.ResourceID, err = t.DefaultResource(ctx, "threadId", "", f.ResourceID)
	} else {
		f.ResourceID, err = t.RequireResource(ctx, "threadId", "", f.ResourceID)
	}
	return f, stored, err
}

func (s *Server) getMemCtx(r *http.Request, p *Principal) (any, error) {
	rec, err := s.run(r.Context(), p, r.PathValue("run"))
	if err != nil {
		return nil, err
	}
	return rec, nil
}

func (s *Server) replay(r *http.Request, p *Principal) (any, error) {
	ctx := r.Context()
	rec, err := s.run(ctx, p, r.PathValue("run"))
	if err != nil {
		return nil, err
	}
	var b ReplayBody
	if err := decodeBody(r, &b); err != nil {
		return nil, err
	}
	opt := engine.ReplayOptions{WithoutRecalled: b.WithoutRecalled, WithoutObservations: b.WithoutObservations,
		WithoutObservationIDs: b.WithoutObservationIDs, WithoutWorkingMemory: b.WithoutWorkingMemory}
	for i, t := range b.WithoutTurns {
		if t.Seq < 1 {
			field := fmt.Sprintf("withoutTurns[%d].seq", i)
			return nil, errorf(kindInvalid, field, "%s must be a seq, >= 1, got %d", field, t.Seq)
		}
		opt.WithoutTurns = append(opt.WithoutTurns, engine.TurnRef{ThreadID: t.ThreadID, Seq: t.Seq})
	}
	rp, err := s.cfg.Engine.Replay(ctx, rec.RunID, opt)
	if err != nil {
		return nil, err
	}
	return ReplayOf(rp), nil
}

// timeOrZero is *t, or the zero time (the engine's clock) when t is nil.
func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
