package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// ExpireRequest runs the idle-expiry policy now (Expire).
type ExpireRequest struct {
	// Idle, when positive, is an operator's override: every thread idle for
	// at least Idle expires, whatever its own lifetime (a thread set never
	// to expire included), and its event has reason EventOperator. Zero
	// applies each thread's lifetime (EventExpired).
	Idle time.Duration
	// ResourceID, when not empty, limits expiry to that resource's threads.
	ResourceID string
	// DryRun reports what would expire and erases nothing.
	DryRun bool
}

// ExpiredThread is one thread Expire erased (or, in a dry run, would
// erase). It carries metadata only, never content.
type ExpiredThread struct {
	// ThreadID is the thread's id.
	ThreadID string `json:"threadId"`
	// ResourceID is the thread's resource.
	ResourceID string `json:"resourceId"`
	// LastActiveAt is the engine's clock at the thread's last append (Thread.LastActiveAt).
	LastActiveAt time.Time `json:"lastActiveAt"`
	// Idle is how long it had been idle at the run's clock reading (JSON: nanoseconds).
	Idle time.Duration `json:"idleNanos"`
	// Messages counts its messages.
	Messages int64 `json:"messages"`
	// Bytes is the size of its messages as stored (Thread.Bytes), in bytes.
	Bytes int64 `json:"bytes"`
	// Reason is EventExpired or EventOperator.
	Reason EventReason `json:"reason"`
}

// ExpireResult reports an expiry run.
type ExpireResult struct {
	// Threads are the threads erased (or due, in a dry run), least
	// recently active first (ties by resource, then thread id).
	Threads []ExpiredThread `json:"threads"`
	// PrunedRuns counts the memctx records (one per run) older than
	// Config.Retention.MaxAge that were deleted (in a dry run: that would
	// be), of every thread, or of ExpireRequest.ResourceID's runs; 0 when
	// MaxAge is not set. Pruning comes before expiry: an expiring thread's
	// records older than MaxAge are counted here.
	PrunedRuns int64 `json:"prunedRuns"`
	// DryRun echoes ExpireRequest.DryRun: nothing was erased.
	DryRun bool `json:"dryRun,omitempty"`
}

// Expire erases every thread that has been idle for at least its lifetime
// at the engine's clock (see Lifecycle.IdleTTL and ExpireRequest), each
// through DeleteThread's path in its own erasure transaction, then runs the
// physical purge once for all of them (one index rebuild, segment
// merge and residue check however many threads expired), and publishes an
// event per thread (EventExpired or EventOperator instead of EventErased)
// once it finished. The runs recorded under a thread id with no stored
// thread expire as a thread of no messages, idle since their newest run,
// for the default lifetime or Idle. As for DeleteThread, when Expire
// returns nil no file of the data directory holds the expired threads' text or ids. A thread that
// became active again after it was selected is left alone. Idleness is
// measured forward only: after the clock moves back, nothing expires until
// it has passed the threads' last activity by their lifetime again.
//
// First, when Config.Retention.MaxAge is set, Expire deletes the memctx
// records older than MaxAge of every thread (ExpireRequest.ResourceID's
// runs only, when set), also of a thread that loads no context again
// (LoadContext prunes only its own thread's), a batch a transaction
// (ExpireResult.PrunedRuns; a dry run counts them). Retention.KeepRuns
// needs no sweep: each LoadContext applies it to its thread. Pruning is a
// delete (on SQLite with secure_delete, as every delete), not an erasure:
// the run ids stay claimed (journal.ClaimRun) and no physical purge runs.
//
// Errors: a *ValidationError for an invalid ResourceID; ctx's error (the
// threads erased so far are reported: their erasure is done and their
// markers make the next erasure, or Open, finish their physical purge);
// the first erasure error (ErrEraseBusy), with the result so far (whose
// purge ran); the database's error while pruning (nothing expired yet);
// ErrEraseIncomplete when the purge did not finish (retried as for
// DeleteThread).
func (e *Engine) Expire(ctx context.Context, req ExpireRequest) (*ExpireResult, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if req.ResourceID != "" && !ValidID(req.ResourceID) {
		return nil, badID(-1, "resourceId", req.ResourceID, false)
	}
	if req.Idle < 0 {
		return nil, invalid(-1, "idle", "must not be negative")
	}
	now := e.now().UTC()
	res := &ExpireResult{Threads: []ExpiredThread{}, DryRun: req.DryRun}
	var err error
	if res.PrunedRuns, err = e.pruneAged(ctx, req, now); err != nil {
		return res, err
	}
	due, err := e.dueThreads(ctx, req, now)
	if err != nil {
		return nil, err
	}
	if req.DryRun {
		res.Threads = append(res.Threads, due...)
		return res, nil
	}
	sw := e.newSweep()
	for _, t := range due {
		if err := ctx.Err(); err != nil {
			_ = sw.finish(ctx) // owes the purge, publishes the events
			return res, err
		}
		err := e.eraseIfIdle(ctx, sw, t.ThreadID, t.ResourceID, now, req.Idle, t.Reason)
		switch {
		case errors.Is(err, errNotDue), errors.Is(err, ErrThreadNotFound):
			continue
		case err != nil:
			return res, errors.Join(fmt.Errorf("engine: expire thread %s: %w", t.ThreadID, err), sw.finish(ctx))
		}
		res.Threads = append(res.Threads, t)
	}
	return res, sw.finish(ctx)
}

// dueThreads lists the threads due for expiry at now, least recently
// active first.
func (e *Engine) dueThreads(ctx context.Context, req ExpireRequest, now time.Time) ([]ExpiredThread, error) {
	var out []ExpiredThread
	err := e.ms.ByActivity(ctx, req.ResourceID, func(a msgstore.Activity) error {
		t := ExpiredThread{ThreadID: a.ThreadID, ResourceID: a.ResourceID, Messages: a.Messages, Bytes: a.Bytes}
		ttl := e.idleTTL(a.IdleTTLMS)
		t.Reason = EventExpired
		if req.Idle > 0 {
			ttl, t.Reason = req.Idle, EventOperator
		}
		t.LastActiveAt, t.Idle = time.UnixMilli(a.LastActiveMS).UTC(), idleSince(now.UnixMilli(), a.LastActiveMS)
		if due(ttl, t.Idle) {
			out = append(out, t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("engine: expire: %w", err)
	}
	ghosts, err := e.dueGhosts(ctx, e.db, req, now) // runs on thread ids with no stored thread (ghost.go)
	if err != nil || len(ghosts) == 0 {
		return out, err
	}
	out = append(out, ghosts...)
	slices.SortStableFunc(out, func(a, b ExpiredThread) int {
		return cmp.Or(a.LastActiveAt.Compare(b.LastActiveAt), cmp.Compare(a.ResourceID, b.ResourceID), cmp.Compare(a.ThreadID, b.ThreadID))
	})
	return out, nil
}
