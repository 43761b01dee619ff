package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// HealthTimeout bounds the database round trip of GET /healthz: a database
// that does not answer within it (down, or a network partition that leaves
// connections open) makes the check answer 503 then, not when the prober
// gives up.
const HealthTimeout = 5 * time.Second

// health answers GET /healthz: 200 when the engine is open and its database
// answers within HealthTimeout, else 503 (the cause is logged): also once
// the engine has found its database file damaged (engine.Ping's
// ErrDatabaseCorrupt), though it still answers the reads that miss the
// damaged pages, and on Postgres once a newer build migrated the schema
// (engine.ErrSchemaMigrated: every write answers 503). A lexical index quarantined and rebuilding stays 200, as
// does a stored working-memory configuration that does not build
// (engine.ErrStoredWorkingMemory), with status "degraded" and a reason:
// the working-memory routes answer 503 working-memory-unavailable, the
// rest works. So do a lexical index found damaged whose quarantine has
// not run yet (it starts at once) and recall indexes closed by a recovery
// that could not open new ones yet (engine.IndexUnavailable: a full disk,
// for one): searches and contexts answer without recalled messages
// meanwhile. So does a disk full for the last write (engine.DiskFull: it
// answered 507), until a write commits again, or for the lexical index's
// own writes, until it writes again; with the index closed too,
// the reason names both (DiskFullIndexUnavailableDetail).
func (s *Server) health(r *http.Request, _ *Principal) (any, error) {
	ctx, cancel := context.WithTimeout(r.Context(), HealthTimeout)
	defer cancel()
	if err := s.cfg.Engine.Ping(ctx); err != nil {
		if errors.Is(err, engine.ErrClosed) {
			return nil, err
		}
		if errors.Is(err, engine.ErrDatabaseCorrupt) || errors.Is(err, engine.ErrDatabaseReplaced) {
			// A damaged file does not heal: a load balancer must stop
			// sending traffic here until the operator restores it, and no
			// Retry-After invites a client to try again in seconds.
			return nil, databaseDamaged(err)
		}
		if ue := (*engine.UnlinkedDatabaseError)(nil); errors.As(err, &ue) {
			// The log has the /proc path to copy the removed file from:
			// it is lost once this process stops.
			return nil, &apiError{kind: kindUnavailable, detail: "the database file was removed from the data directory while the server runs; copy it out as the server log says before stopping the server", cause: err, lasting: true}
		}
		if errors.Is(err, engine.ErrSchemaMigrated) {
			// Every write is refused from now on (unreachable): the
			// servers of the newer build are the ones to send traffic to.
			return nil, unreachable(s.cfg.Engine, err)
		}
		return nil, &apiError{kind: kindUnavailable, detail: "the database does not answer", cause: err}
	}
	if _, err := s.cfg.Engine.WorkingMemory(); errors.Is(err, engine.ErrStoredWorkingMemory) {
		// Still 200: messages, search and contexts without working
		// memory answer, and on Postgres every server of the schema reads
		// the same stored configuration, so a 503 would take them all out
		// of their load balancer for what only working memory lacks.
		return Health{Status: "degraded", Version: s.cfg.Version, Reason: StoredWorkingMemoryDetail}, nil
	}
	diskFull, indexGone := s.cfg.Engine.DiskFull() != nil, s.cfg.Engine.IndexUnavailable() != nil
	switch {
	case diskFull && indexGone:
		// Both: DiskFullDetail alone says searches answer, which they
		// do not while the index is closed.
		return Health{Status: "degraded", Version: s.cfg.Version, Reason: DiskFullIndexUnavailableDetail}, nil
	case diskFull:
		// Still 200: reads and searches answer; writes (contexts too) answer
		// 507 until the disk has room (the next write that commits).
		return Health{Status: "degraded", Version: s.cfg.Version, Reason: DiskFullDetail}, nil
	case indexGone:
		// Still 200: messages are stored and read; only recall lacks.
		return Health{Status: "degraded", Version: s.cfg.Version, Reason: IndexUnavailableDetail}, nil
	}
	return Health{Status: "ok", Version: s.cfg.Version}, nil
}

// listThreads answers GET /v1/threads: a page after the cursor (keyset),
// or after skipping offset (deprecated) when one is given; a page asked
// without a cursor also says its nextOffset, for clients that page by
// offset.
func (s *Server) listThreads(r *http.Request, p *Principal) (any, error) {
	q := r.URL.Query()
	limit, err := IntParam(r, "limit", engine.DefaultPageLimit, 1, engine.MaxPageLimit)
	if err != nil {
		return nil, err
	}
	offset, err := IntParam(r, "offset", 0, 0, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	cursor, err := PageCursor(q)
	if err != nil {
		return nil, err
	}
	names, err := s.listedResources(p, q.Get("resourceId"))
	if err != nil {
		return nil, err
	}
	if names == nil {
		return ThreadList{Threads: []engine.Thread{}}, nil
	}
	if cursor != "" || offset == 0 {
		pg, err := s.cfg.Engine.ThreadsPage(r.Context(), engine.ThreadsRequest{Resources: names, Limit: int(limit), Cursor: cursor})
		if err != nil {
			return nil, err
		}
		out := ThreadList{Threads: nonNil(pg.Threads), NextCursor: pg.NextCursor}
		if pg.NextCursor != "" && cursor == "" {
			out.NextOffset = len(pg.Threads)
		}
		return out, nil
	}
	ts, more, err := s.cfg.Engine.ListThreadsPage(r.Context(), names, int(limit), int(offset))
	if err != nil {
		return nil, err
	}
	out := ThreadList{Threads: nonNil(ts)}
	if more {
		out.NextOffset = int(offset) + len(ts)
		out.NextCursor = engine.ThreadCursor(ts[len(ts)-1])
	}
	return out, nil
}

// listedResources returns the resources GET /v1/threads lists for p: the
// one asked (resourceId, which p must hold), else p's (sorted), else an
// empty slice for every resource's (an operator); nil with no error when
// p holds none (an empty listing).
func (s *Server) listedResources(p *Principal, res string) ([]string, error) {
	switch {
	case res != "":
		if err := s.resource(p, "resourceId", res); err != nil {
			return nil, err
		}
		return []string{res}, nil
	case p.All:
		return []string{}, nil
	}
	names := make([]string, 0, len(p.Resources))
	for n := range p.Resources {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, nil
	}
	return names, nil
}

func (s *Server) getThread(r *http.Request, p *Principal) (any, error) {
	th, err := s.thread(r.Context(), p, r.PathValue("thread"))
	if err != nil {
		return nil, err
	}
	return th, nil
}

func (s *Server) listMessages(r *http.Request, p *Principal) (any, error) {
	th, err := s.thread(r.Context(), p, r.PathValue("thread"))
	if err != nil {
		return nil, err
	}
	from, err := intParam(r, "fromSeq", 1, 1)
	if err != nil {
		return nil, err
	}
	to, err := intParam(r, "toSeq", 0, 0)
	if err != nil {
		return nil, err
	}
	if to != 0 && to < from {
		return nil, errorf(kindInvalid, "toSeq", "toSeq must be 0 (to the end) or >= fromSeq (%d), got %d", from, to)
	}
	limit, err := IntParam(r, "limit", engine.DefaultPageLimit, 1, engine.MaxPageLimit)
	if err != nil {
		return nil, err
	}
	before, err := intParam(r, "beforeSeq", 0, 1)
	if err != nil {
		return nil, err
	}
	if before != 0 && before <= from && r.URL.Query().Has("fromSeq") {
		// fromSeq <= seq < beforeSeq holds no seq: refused as toSeq below
		// fromSeq is (it was 200 and no message). Without fromSeq,
		// ?beforeSeq=1 asks for what precedes the first message: none.
		return nil, errorf(kindInvalid, "beforeSeq", "beforeSeq must be > fromSeq (%d): the page holds fromSeq <= seq < beforeSeq; got %d", from, before)
	}
	pg, err := s.cfg.Engine.MessagesPage(r.Context(), th.ID, engine.PageRequest{FromSeq: from, ToSeq: to, BeforeSeq: before, Limit: int(limit)})
	if err != nil {
		return nil, err
	}
	return MessageList{Messages: nonNil(pg.Messages), NextFromSeq: pg.NextFromSeq, NextBeforeSeq: pg.NextBeforeSeq}, nil
}

func (s *Server) appendMessages(r *http.Request, p *Principal) (any, error) {
	var b AppendBody
	l := s.cfg.Engine.Limits()
	if err := decodeBounded(r, &b, &l); err != nil {
		return nil, err
	}
	return s.tenant(p).Append(r.Context(), r.PathValue("thread"), b)
}

// Append stores messages at the end of a thread of one of the principal's
// resources (creating it), as POST /v1/threads/{thread}/messages does; a
// thread id or a given resourceId "." or ".." is refused (NewID), even for
// a stored thread, before the token's resources are looked at (it was a
// 404 "resource not found" for a token not given that resource). A
// body without resourceId appends to the resource DefaultResource gives
// (the stored thread's, else the token's only one); when none decides,
// the error names resourceId. A tool message that answers no call of the
// thread is stored and named in the answer's Unpaired (the engine's
// AppendResult.Unpaired); UnpairedUnchecked counts those the engine did
// not check.
func (t Tenant) Append(ctx context.Context, threadID string, b AppendBody) (*AppendResult, error) {
	if err := NewID("thread", threadID); err != nil {
		return nil, err
	}
	if b.ResourceID != "" {
		if err := NewID("resourceId", b.ResourceID); err != nil {
			return nil, err
		}
	}
	rid, err := t.RequireResource(ctx, "thread", threadID, b.ResourceID)
	if err != nil {
		return nil, err
	}
	b.ResourceID = rid
	if err := t.Resource("resourceId", b.ResourceID); err != nil {
		return nil, err
	}
	th, err := t.Thread(ctx, threadID)
	switch {
	case errors.Is(err, ErrNotFound):
		// A new thread (or one of a foreign resource: Append then fails
		// with ErrResourceMismatch, answered below as not found).
	case err != nil:
		return nil, err
	case th.ResourceID != b.ResourceID:
		return nil, ThreadConflict("resourceId", threadID)
	}
	req := engine.AppendRequest{ThreadID: threadID, ResourceID: b.ResourceID, Messages: make([]engine.Message, len(b.Messages))}
	for i, m := range b.Messages {
		if err := checkTime(fmt.Sprintf("messages[%d].createdAt", i), m.CreatedAt); err != nil {
			return nil, err
		}
		req.Messages[i] = engine.Message{ID: m.ID, Role: m.Role, Content: m.Content, Name: m.Name, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Metadata: m.Metadata}
		if m.CreatedAt != nil {
			req.Messages[i].CreatedAt = *m.CreatedAt
		}
	}
	res, err := t.Engine.Append(ctx, req)
	if errors.Is(err, engine.ErrResourceMismatch) {
		return nil, notFound("thread", threadID)
	}
	if err != nil {
		return nil, err
	}
	return &AppendResult{ThreadID: res.ThreadID, ResourceID: res.ResourceID, Seqs: res.Seqs, IDs: res.IDs,
		Stored: res.Stored, Duplicates: res.Duplicates, Created: res.Created, Evicted: t.visibleEvictions(res),
		Unpaired: unpairedResults(threadID, res.Unpaired), UnpairedUnchecked: res.UnpairedUnchecked}, nil
}

// unpairedResults is the answer's account of the engine's unpaired results
// of an append to thread; nil when there are none.
func unpairedResults(thread string, us []engine.UnpairedResult) []UnpairedResult {
	var out []UnpairedResult
	for _, u := range us {
		out = append(out, UnpairedResult{Index: u.Index, ToolCallID: u.ToolCallID, Detail: fmt.Sprintf(
			"no unanswered call %q before it in thread %q: it is stored, but a context leaves it out (memctx reason orphan-tool-result); append the assistant message making the call first, or give the call's id", u.ToolCallID, thread)})
	}
	return out
}

// visibleEvictions is res.Evicted without the threads of resources the
// principal may not touch (AppendResult.Evicted says why); nil when none
// is left.
func (t Tenant) visibleEvictions(res *engine.AppendResult) []string {
	var ids []string
	for i, id := range res.Evicted {
		if i < len(res.EvictedResources) && t.Principal.Allows(res.EvictedResources[i]) {
			ids = append(ids, id)
		}
	}
	return ids
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
