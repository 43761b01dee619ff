package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// Quota bounds what the store holds. Each bound counts the messages, or
// bytes, stored now (full content, name, tool calls and metadata, as
// stored after redaction); zero means unbounded, and a negative bound is
// refused by Open (a *ValidationError naming Lifecycle.Quota.<Field>).
//
// Under pressure the default is eviction: the Append is stored, then the
// least recently active threads other than the one appended to are erased
// (through DeleteThread's path, one EventEvictedResourceQuota or
// EventEvictedStoreQuota each) until every bound holds again; ties are
// broken by resource, then thread id. The thread being appended to is
// never evicted, so a single thread larger than a bound stays until an
// append to another thread evicts it. With Refuse, the Append is refused
// instead and stores nothing.
type Quota struct {
	// ResourceMessages bounds the messages of one resource.
	ResourceMessages int64 `json:"resourceMessages,omitempty"`
	// ResourceBytes bounds the bytes of one resource.
	ResourceBytes int64 `json:"resourceBytes,omitempty"`
	// StoreMessages bounds the messages of the whole store.
	StoreMessages int64 `json:"storeMessages,omitempty"`
	// StoreBytes bounds the bytes of the whole store.
	StoreBytes int64 `json:"storeBytes,omitempty"`
	// Refuse makes an Append that would break a bound fail with a
	// *QuotaError (ErrQuotaExceeded) rather than evict.
	Refuse bool `json:"refuse,omitempty"`
}

func (q Quota) resourceBound() bool { return q.ResourceMessages > 0 || q.ResourceBytes > 0 }
func (q Quota) storeBound() bool    { return q.StoreMessages > 0 || q.StoreBytes > 0 }

// over names the first bound u breaks, or "" when none.
func over(u msgstore.Usage, maxMessages, maxBytes int64) (field string, limit, have int64) {
	switch {
	case maxMessages > 0 && u.Messages > maxMessages:
		return "messages", maxMessages, u.Messages
	case maxBytes > 0 && u.Bytes > maxBytes:
		return "bytes", maxBytes, u.Bytes
	}
	return "", 0, 0
}

// usage sums the threads of resource (all threads when empty), read
// through q (a transaction or the pool).
func (e *Engine) usage(ctx context.Context, q msgstore.Querier, resource string) (msgstore.Usage, error) {
	u, err := e.ms.Usage(ctx, q, resource)
	if err != nil {
		return u, fmt.Errorf("engine: quota: %w", err)
	}
	return u, nil
}

// refuseOverQuota returns a *QuotaError when, with what appendTx just
// stored, resource or the store is over a bound (Quota.Refuse).
func (e *Engine) refuseOverQuota(ctx context.Context, tx *store.Tx, resource string) error {
	q := e.cfg.Lifecycle.Quota
	if q.resourceBound() {
		u, err := e.usage(ctx, tx, resource)
		if err != nil {
			return err
		}
		if field, limit, have := over(u, q.ResourceMessages, q.ResourceBytes); field != "" {
			return &QuotaError{Scope: "resource", ResourceID: resource, Field: field, Limit: limit, Have: have}
		}
	}
	if q.storeBound() {
		u, err := e.usage(ctx, tx, "")
		if err != nil {
			return err
		}
		if field, limit, _ := over(u, q.StoreMessages, q.StoreBytes); field != "" {
			return &QuotaError{Scope: "store", Field: field, Limit: limit}
		}
	}
	return nil
}

// maxEvictions bounds one enforcement pass; the next append resumes it.
const maxEvictions = 1000

// enforceQuota evicts the least recently active threads other than
// current until resource and the store are within their bounds, as part of
// sw (the caller's finish purges them all at once), and returns the
// threads evicted and the resource of each. It runs after an Append
// committed, so a failure is logged, not returned: the next append tries
// again.
func (e *Engine) enforceQuota(ctx context.Context, sw *sweep, current, resource string) (evicted, resources []string) {
	q := e.cfg.Lifecycle.Quota
	if q.Refuse || (!q.resourceBound() && !q.storeBound()) {
		return nil, nil
	}
	resourceDone := !q.resourceBound() // nothing (left) to evict for it
	for len(evicted) < maxEvictions {
		scope, reason := e.pressure(ctx, resource, resourceDone)
		if reason == "" {
			return evicted, resources
		}
		id, owner, err := e.evictOne(ctx, sw, current, scope, reason)
		switch {
		case errors.Is(err, errNoCandidate) && scope != "":
			resourceDone = true
		case err != nil:
			if !errors.Is(err, errNoCandidate) {
				e.log.Warn("quota: eviction failed", "reason", reason, "err", err)
			}
			return evicted, resources
		case id != "":
			evicted, resources = append(evicted, id), append(resources, owner)
		}
	}
	return evicted, resources
}

// pressure says which bound to evict for next: the resource's (scope
// resource, unless skipResource), then the store's (scope ""). The reason
// is "" when every bound holds or usage cannot be read.
func (e *Engine) pressure(ctx context.Context, resource string, skipResource bool) (string, EventReason) {
	q := e.cfg.Lifecycle.Quota
	if !skipResource {
		u, err := e.usage(ctx, e.db, resource)
		if err != nil {
			e.log.Warn("quota: cannot read usage", "err", err)
			return "", ""
		}
		if field, _, _ := over(u, q.ResourceMessages, q.ResourceBytes); field != "" {
			return resource, EventEvictedResourceQuota
		}
	}
	if q.storeBound() {
		u, err := e.usage(ctx, e.db, "")
		if err != nil {
			e.log.Warn("quota: cannot read usage", "err", err)
			return "", ""
		}
		if field, _, _ := over(u, q.StoreMessages, q.StoreBytes); field != "" {
			return "", EventEvictedStoreQuota
		}
	}
	return "", ""
}

// errNoCandidate: nothing but the current thread is left to evict.
var errNoCandidate = errors.New("engine: quota: no thread to evict")

// evictOne erases, as part of sw, the least recently active thread of
// resource (of the store when empty) other than current, and returns it
// and its resource. It returns "" without error when the chosen thread
// became active in between (the caller picks again).
func (e *Engine) evictOne(ctx context.Context, sw *sweep, current, resource string, reason EventReason) (id, owner string, err error) {
	a, err := e.ms.LeastActive(ctx, resource, current)
	if errors.Is(err, msgstore.ErrNotFound) {
		return "", "", errNoCandidate
	}
	if err != nil {
		return "", "", fmt.Errorf("engine: quota: %w", err)
	}
	id = a.ThreadID
	guard := func(ctx context.Context, tx *store.Tx) error {
		now, err := e.ms.LastActive(ctx, tx, id)
		if errors.Is(err, msgstore.ErrNotFound) || (err == nil && now != a.LastActiveMS) {
			return errNotDue
		}
		return err
	}
	_, err = sw.erase(ctx, eraseThread, []string{id}, eraseOpts{guard: guard, reason: reason, resource: a.ResourceID})
	switch {
	case errors.Is(err, errNotDue):
		return "", "", nil
	case err != nil:
		return "", "", err
	}
	return id, a.ResourceID, nil
}
