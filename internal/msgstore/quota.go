package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file holds the quota's statements on threads: what a resource or
// the store holds, and the thread to evict next. The engine decides the
// bounds and the order of eviction (engine/quota.go).

// Usage is what a resource or the whole store holds: the sums of its
// threads' message_count and bytes.
type Usage struct{ Messages, Bytes int64 }

// Usage sums the threads of resourceID (every thread when empty), read
// through q: the caller's transaction, or the pool (after an append
// committed).
func (s *Store) Usage(ctx context.Context, q Querier, resourceID string) (Usage, error) {
	var u Usage
	var err error
	if resourceID == "" {
		err = q.QueryRowContext(ctx, `SELECT COALESCE(SUM(message_count), 0), COALESCE(SUM(bytes), 0) FROM threads`).Scan(&u.Messages, &u.Bytes)
	} else {
		err = q.QueryRowContext(ctx, s.dialect.Rebind(`SELECT COALESCE(SUM(message_count), 0), COALESCE(SUM(bytes), 0) FROM threads WHERE resource_id = ?`),
			resourceID).Scan(&u.Messages, &u.Bytes)
	}
	if err != nil {
		return u, fmt.Errorf("read usage: %w", err)
	}
	return u, nil
}

// LeastActive returns the least recently active thread of resourceID (of
// the store when empty) other than except, with ThreadID, ResourceID and
// LastActiveMS; ties are broken by resource, then thread id (byte order,
// as ByActivity). It returns ErrNotFound (wrapped) when there is none.
func (s *Store) LeastActive(ctx context.Context, resourceID, except string) (Activity, error) {
	var a Activity
	var err error
	if resourceID == "" {
		err = s.conn.QueryRowContext(ctx, `SELECT id, resource_id, last_active FROM threads WHERE id <> ?`+s.activityOrder()+` LIMIT 1`,
			except).Scan(&a.ThreadID, &a.ResourceID, &a.LastActiveMS)
	} else {
		a.ResourceID = resourceID
		err = s.conn.QueryRowContext(ctx, `SELECT id, last_active FROM threads WHERE resource_id = ? AND id <> ?`+s.activityOrder()+` LIMIT 1`,
			resourceID, except).Scan(&a.ThreadID, &a.LastActiveMS)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("%w: no thread but %q", ErrNotFound, except)
	}
	if err != nil {
		return a, fmt.Errorf("pick a thread: %w", err)
	}
	return a, nil
}

// LastActive reads, in tx, threadID's last_active (milliseconds since the
// epoch); ErrNotFound (wrapped) when the thread is not stored.
func (s *Store) LastActive(ctx context.Context, tx *store.Tx, threadID string) (int64, error) {
	var ms int64
	err := s.in(tx).QueryRowContext(ctx, `SELECT last_active FROM threads WHERE id = ?`, threadID).Scan(&ms)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%w: thread %q", ErrNotFound, threadID)
	}
	if err != nil {
		return 0, fmt.Errorf("read thread %s: %w", threadID, err)
	}
	return ms, nil
}
