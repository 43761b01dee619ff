package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// Lifecycle bounds how long threads live and how much the store holds. The
// zero value keeps every thread forever and bounds nothing.
type Lifecycle struct {
	// IdleTTL is the default idle lifetime of a thread. A thread is idle
	// from its last activity (the engine's clock when an Append last stored
	// a message in it); once idle for at least its lifetime it is expired:
	// erased through DeleteThread's path (derived state included), by
	// Expire, by `mnemo serve` periodically, and at the latest by the next
	// Append to it, which then starts a fresh thread with none of the old
	// transcript. SetIdleTTL overrides it per thread. Zero means threads
	// never expire unless they have a lifetime of their own; a negative
	// value is refused by Open (a *ValidationError naming
	// Lifecycle.IdleTTL).
	//
	// Expiry is an erasure: the working-memory versions written by the
	// expired thread's runs go too, also in a resource-scoped state, which
	// then lasts only as long as the chats that wrote it. A version set
	// outside a run (working.Memory.Set, `mnemo wm set`), written by a run
	// of a thread that never expires (SetIdleTTL negative), or whose run's
	// record Retention.MaxAge pruned first, stays.
	IdleTTL time.Duration

	// Quota bounds what each resource and the whole store may hold.
	// The zero value bounds nothing.
	Quota Quota
}

// Lifecycle event reasons (Event.Reason; the other reasons are beside
// Event).
const (
	// EventExpired: a thread was erased because it was idle for at least
	// its lifetime (Lifecycle.IdleTTL or its own, SetIdleTTL).
	EventExpired EventReason = "expired"
	// EventEvictedResourceQuota: a thread was erased, least recently
	// active first, to bring its resource back within Quota.
	EventEvictedResourceQuota EventReason = "evicted-resource-quota"
	// EventEvictedStoreQuota: a thread was erased, least recently active
	// first, to bring the store back within Quota.
	EventEvictedStoreQuota EventReason = "evicted-store-quota"
	// EventOperator: a thread was erased by an operator's explicit expiry
	// (ExpireRequest.Idle, `mnemo expire --idle D`), whatever its own
	// lifetime.
	EventOperator EventReason = "operator"
)

// messageBytes is what a stored row adds to its thread's bytes.
func (r row) messageBytes() int64 {
	return int64(len(r.fullContent(r.Content)) + len(r.Name) + len(r.toolCallsJSON) + len(r.metadataJSON))
}

// eraseOpts adjusts an erasure started by the lifecycle: guard runs first
// in the erasure transaction and may call it off; reason and resource
// replace EventErased and the resource in the published event.
type eraseOpts struct {
	guard    func(ctx context.Context, tx *store.Tx) error
	reason   EventReason
	resource string
}

// errNotDue calls off a lifecycle erasure whose thread became active again
// between its selection and the erasure transaction.
var errNotDue = errors.New("engine: thread is no longer due for expiry or eviction")

// idleTTL is the lifetime of a thread whose stored idle_ttl is ms: its own
// when positive, none when negative, the default otherwise. Zero means it
// never expires.
func (e *Engine) idleTTL(ms int64) time.Duration {
	switch {
	case ms > 0:
		return time.Duration(ms) * time.Millisecond
	case ms < 0:
		return 0
	}
	return e.cfg.Lifecycle.IdleTTL
}

// idleSince is how long a thread last active at lastActive (Unix ms) has
// been idle at now (Unix ms). A clock that went back before lastActive
// gives zero: idleness is only ever measured forward, so a wall clock
// moving backwards never expires anything early.
func idleSince(now, lastActive int64) time.Duration {
	if now <= lastActive {
		return 0
	}
	return time.Duration(now-lastActive) * time.Millisecond
}

// due reports whether a thread with this lifetime and idleness expires.
func due(ttl, idle time.Duration) bool { return ttl > 0 && idle >= ttl }

// MaxIdleTTL is the longest idle lifetime SetIdleTTL takes: 100 years
// (876000 h). A longer one is refused rather than stored: its round-up to
// a millisecond overflowed near math.MaxInt64 and was read back as
// "never"; a thread that should not expire takes a negative ttl.
const MaxIdleTTL = 876000 * time.Hour

// SetIdleTTL sets a thread's own idle lifetime, overriding
// Lifecycle.IdleTTL: ttl > 0 is its lifetime (rounded up to a
// millisecond, at most MaxIdleTTL), ttl < 0 means it never expires, zero
// returns it to the default. It does not count as activity.
//
// Errors: a *ValidationError for an invalid id, or field "idleTtl" for a
// ttl above MaxIdleTTL; ErrThreadNotFound;
// ErrResourceMismatch when resourceID is given and the thread is another
// resource's (the error names neither the owner nor the thread's content).
func (e *Engine) SetIdleTTL(ctx context.Context, threadID, resourceID string, ttl time.Duration) error {
	if err := e.checkWritable(ctx); err != nil {
		return err
	}
	if !ValidID(threadID) {
		return badID(-1, "threadId", threadID, false)
	}
	if resourceID != "" && !ValidID(resourceID) {
		return badID(-1, "resourceId", resourceID, false)
	}
	if ttl > MaxIdleTTL {
		return &ValidationError{Index: -1, Field: "idleTtl", Rule: fmt.Sprintf("must be at most %s (100 years; a negative one never expires), got %s", MaxIdleTTL, ttl)}
	}
	ms := int64(0)
	switch {
	case ttl > 0:
		ms = int64((ttl + time.Millisecond - 1) / time.Millisecond)
	case ttl < 0:
		ms = -1
	}
	return e.tx(ctx, func(tx *store.Tx) error {
		owner, err := msgstore.ThreadOwner(ctx, tx, threadID)
		switch {
		case errors.Is(err, msgstore.ErrNotFound):
			return fmt.Errorf("%w: %q", ErrThreadNotFound, threadID)
		case err != nil:
			return fmt.Errorf("engine: %w", err)
		case resourceID != "" && owner != resourceID:
			return notOwner(threadID, resourceID)
		}
		if err := e.ms.SetIdleTTL(ctx, tx, threadID, ms); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		return nil
	})
}

// eraseIfIdle erases threadID through DeleteThread's path, as part of sw
// (whose finish purges), when, inside the erasure transaction, it is still
// idle for at least its lifetime (or override, when positive) at now. It
// returns errNotDue when it is not, and ErrThreadNotFound when it is gone
// already.
func (e *Engine) eraseIfIdle(ctx context.Context, sw *sweep, threadID, resourceID string, now time.Time, override time.Duration, reason EventReason) error {
	guard := func(ctx context.Context, tx *store.Tx) error {
		a, err := e.ms.Idleness(ctx, tx, threadID)
		if errors.Is(err, msgstore.ErrNotFound) { // runs only (ghost.go), or erased meanwhile
			return e.ghostGuard(ctx, tx, threadID, resourceID, now, override)
		}
		if err != nil {
			return fmt.Errorf("engine: expire: %w", err)
		}
		if resourceID != "" && a.ResourceID != "" && a.ResourceID != resourceID {
			// Another resource's thread holds the id: resourceID's runs
			// recorded on it before are its own, idle by their own rule.
			return e.ghostGuard(ctx, tx, threadID, resourceID, now, override)
		}
		ttl := e.idleTTL(a.IdleTTLMS)
		if override > 0 {
			ttl = override
		}
		if !due(ttl, idleSince(now.UnixMilli(), a.LastActiveMS)) {
			return errNotDue
		}
		return nil
	}
	// Limited to resourceID: another resource's thread (or runs) on the id
	// is not this one's to expire.
	_, err := sw.erase(ctx, eraseThread, []string{threadID, resourceID}, eraseOpts{guard: guard, reason: reason, resource: resourceID})
	return err
}

// expiredError rolls back an Append to a thread that is due for expiry.
type expiredError struct{ resource string }

func (*expiredError) Error() string { return "engine: thread expired" }

// expireForAppend expires threadID, as part of sw (whose finish the caller
// runs before it returns), before an Append stores a new turn in a fresh
// thread of that id. A thread that another call expired (or made active)
// in between is not an error.
func (e *Engine) expireForAppend(ctx context.Context, sw *sweep, threadID, resourceID string, now time.Time) error {
	err := e.eraseIfIdle(ctx, sw, threadID, resourceID, now, 0, EventExpired)
	switch {
	case err == nil, errors.Is(err, errNotDue), errors.Is(err, ErrThreadNotFound):
		return nil
	}
	return fmt.Errorf("engine: expire thread %s before appending: %w", threadID, err)
}

// threadDue reports whether th is idle for at least its lifetime at now.
func (e *Engine) threadDue(th *Thread, now time.Time) bool {
	ms := th.IdleTTL.Milliseconds()
	if th.IdleTTL < 0 {
		ms = -1
	}
	return due(e.idleTTL(ms), idleSince(now.UnixMilli(), th.LastActiveAt.UnixMilli()))
}
