package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file holds the lifecycle's statements on threads: a thread's own
// idle lifetime, the idleness read by idle expiry, and the listing of
// threads by activity. The engine decides what is due (engine/lifecycle.go,
// engine/expire.go); an erasure it starts re-reads the thread inside its
// transaction (Idleness, LastActive) so that a thread that became active in
// between is left alone.

// Activity is what idle expiry and quota eviction read of a thread, as
// stored. A read fills the fields its doc names; the others are zero.
type Activity struct {
	ThreadID     string
	ResourceID   string
	LastActiveMS int64 // threads.last_active: the engine's clock at its latest append, ms since the epoch
	IdleTTLMS    int64 // threads.idle_ttl: > 0 its own lifetime in ms, < 0 never expires, 0 the default
	Messages     int64 // threads.message_count
	Bytes        int64 // threads.bytes: its messages as stored
}

// SetIdleTTL stores, in tx, ms as threadID's own idle lifetime (the
// idle_ttl column: > 0 milliseconds, < 0 never expires, 0 the default). An
// unknown thread changes nothing.
func (s *Store) SetIdleTTL(ctx context.Context, tx *store.Tx, threadID string, ms int64) error {
	if _, err := s.in(tx).ExecContext(ctx, `UPDATE threads SET idle_ttl = ? WHERE id = ?`, ms, threadID); err != nil {
		return fmt.Errorf("set idle lifetime of %s: %w", threadID, err)
	}
	return nil
}

// Idleness reads, in tx, threadID's ResourceID, LastActiveMS and IdleTTLMS; ErrNotFound
// (wrapped) when the thread is not stored.
func (s *Store) Idleness(ctx context.Context, tx *store.Tx, threadID string) (Activity, error) {
	a := Activity{ThreadID: threadID}
	err := s.in(tx).QueryRowContext(ctx, `SELECT resource_id, last_active, idle_ttl FROM threads WHERE id = ?`, threadID).Scan(&a.ResourceID, &a.LastActiveMS, &a.IdleTTLMS)
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("%w: thread %q", ErrNotFound, threadID)
	}
	if err != nil {
		return a, fmt.Errorf("read thread %s: %w", threadID, err)
	}
	return a, nil
}

// activityOrder orders threads least recently active first, ties by
// resource then id in byte order on both backends (COLLATE "C" on
// Postgres, whatever the columns' collation), as threadOrder does: the
// order decides which threads an expiry or a quota removes first.
func (s *Store) activityOrder() string {
	return s.dialect.Text(` ORDER BY last_active, resource_id, id`, ` ORDER BY last_active, resource_id COLLATE "C", id COLLATE "C"`)
}

// ByActivity calls fn for the threads of resourceID (every thread when
// empty), least recently active first, ties by resource then thread id
// (byte order), with every field of Activity. It stops at fn's first error and returns
// it.
func (s *Store) ByActivity(ctx context.Context, resourceID string, fn func(Activity) error) error {
	q, args := `SELECT id, resource_id, last_active, idle_ttl, message_count, bytes FROM threads`, []any{}
	if resourceID != "" {
		q, args = q+` WHERE resource_id = ?`, append(args, resourceID)
	}
	rows, err := s.conn.QueryContext(ctx, q+s.activityOrder(), args...)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a Activity
		if err := rows.Scan(&a.ThreadID, &a.ResourceID, &a.LastActiveMS, &a.IdleTTLMS, &a.Messages, &a.Bytes); err != nil {
			return fmt.Errorf("list threads: %w", err)
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	return nil
}
