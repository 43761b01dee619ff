package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// A run recorded under a thread id that has no stored thread of its
// resource (a ghost thread) is the first turn of a new conversation, whose
// LoadContext ran before any append (docs/working-memory.md), or a
// LoadContext that ran just after its thread was erased. Thread ids are
// global names, so another resource may create a thread of the id since:
// the run stays its own resource's, a ghost still. Its memctx record holds
// the query in full, so erasure and expiry reach it by its thread id and
// resource: DeleteThread (of an id with no stored thread) and
// DeleteThreadOf (of its resource) erase it as a thread with no messages,
// DeleteResource erases its resource's, and Expire expires it after the
// default idle lifetime from its newest run. The erasure of another
// resource's thread of the id leaves it as it is.

// DeleteThreadOf is DeleteThread limited to the resources resourceIDs (a
// tenant's): of a thread id with no stored thread of resourceIDs only the
// runs recorded under resourceIDs are erased, also when another
// resource's thread holds the id (that thread, and other resources' runs
// on the id, stay as they are). It returns ErrThreadNotFound when the
// thread id has neither a thread nor a run of resourceIDs, and a
// *ValidationError for an invalid id or no resource.
func (e *Engine) DeleteThreadOf(ctx context.Context, threadID string, resourceIDs ...string) (*EraseResult, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if !ValidID(threadID) {
		return nil, badID(-1, "threadId", threadID, false)
	}
	if len(resourceIDs) == 0 {
		return nil, invalid(-1, "resourceIds", "at least one resource id is required")
	}
	for i, r := range resourceIDs {
		if !ValidID(r) {
			return nil, badID(-1, fmt.Sprintf("resourceIds[%d]", i), r, false)
		}
	}
	return e.erase(ctx, eraseThread, append([]string{threadID}, resourceIDs...))
}

// ThreadlessOwners returns the resources that have runs recorded under
// threadID and no stored thread of that id (a new conversation's first
// LoadContext, or one after its thread was erased; another resource's
// thread may hold the id since), sorted; nil when no such run names the
// id. Errors: a
// *ValidationError naming threadId for an id no record can have
// (ValidID), ErrClosed, ErrNilContext, or the database's.
func (e *Engine) ThreadlessOwners(ctx context.Context, threadID string) ([]string, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if !ValidID(threadID) {
		return nil, badID(-1, "threadId", threadID, false)
	}
	return ghostOwners(ctx, e.db, threadID, nil)
}

// ghostOwners returns, through conn, the resources (of only, when it is
// not empty) whose runs are recorded under thread with no stored thread
// of theirs, sorted.
func ghostOwners(ctx context.Context, conn store.Conn, thread string, only []string) ([]string, error) {
	runs, err := journal.GhostRuns(ctx, conn, thread, "")
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	var out []string
	for _, g := range runs {
		if g.ResourceID != "" && !slices.Contains(out, g.ResourceID) && (len(only) == 0 || slices.Contains(only, g.ResourceID)) {
			out = append(out, g.ResourceID)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ghostThreads returns, through conn, the thread ids of resource's runs
// that have no stored thread of resource.
func ghostThreads(ctx context.Context, conn store.Conn, resource string) ([]string, error) {
	runs, err := journal.GhostRuns(ctx, conn, "", resource)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	var out []string
	for _, g := range runs {
		if !slices.Contains(out, g.ThreadID) {
			out = append(out, g.ThreadID)
		}
	}
	return out, nil
}

// dueGhosts returns the ghost threads (of resource, when not empty) due
// for expiry at now: idle, since their newest run, for the default
// lifetime (Lifecycle.IdleTTL) or the operator's override. One entry per
// thread id and resource.
func (e *Engine) dueGhosts(ctx context.Context, conn store.Conn, req ExpireRequest, now time.Time) ([]ExpiredThread, error) {
	runs, err := journal.GhostRuns(ctx, conn, "", req.ResourceID)
	if err != nil {
		return nil, fmt.Errorf("engine: expire: %w", err)
	}
	ttl, reason := e.idleTTL(0), EventExpired
	if req.Idle > 0 {
		ttl, reason = req.Idle, EventOperator
	}
	var out []ExpiredThread
	for i, g := range runs {
		if i+1 < len(runs) && runs[i+1].ThreadID == g.ThreadID && runs[i+1].ResourceID == g.ResourceID {
			continue // the newest run of each thread and resource (GhostRuns' order)
		}
		t := ExpiredThread{ThreadID: g.ThreadID, ResourceID: g.ResourceID, Reason: reason,
			LastActiveAt: time.UnixMilli(g.CreatedMS).UTC(), Idle: idleSince(now.UnixMilli(), g.CreatedMS)}
		if g.ResourceID != "" && due(ttl, t.Idle) {
			out = append(out, t)
		}
	}
	return out, nil
}

// ghostGuard is eraseIfIdle's check, in tx, of a thread id that has no
// stored thread of resource's: resource's runs on it must still be due at now
// (errNotDue), and there must be some (ErrThreadNotFound).
func (e *Engine) ghostGuard(ctx context.Context, tx *store.Tx, threadID, resourceID string, now time.Time, override time.Duration) error {
	runs, err := journal.GhostRuns(ctx, tx, threadID, resourceID)
	if err != nil {
		return fmt.Errorf("engine: expire: %w", err)
	}
	if len(runs) == 0 {
		return fmt.Errorf("%w: %q", ErrThreadNotFound, threadID)
	}
	ttl := e.idleTTL(0)
	if override > 0 {
		ttl = override
	}
	if !due(ttl, idleSince(now.UnixMilli(), runs[len(runs)-1].CreatedMS)) {
		return errNotDue
	}
	return nil
}
