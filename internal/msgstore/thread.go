package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Thread is one row of threads. Its fields are those of engine.Thread, in
// the same order, so the engine converts it directly.
type Thread struct {
	ID           string
	ResourceID   string
	Title        string
	MessageCount int64
	LastSeq      int64
	CreatedAt    time.Time
	UpdatedAt    time.Time
	LastActiveAt time.Time
	Bytes        int64
	IdleTTL      time.Duration // 0: the configured default; -1: never expires
}

const threadColumns = `id, resource_id, title, message_count, last_seq, created_at, updated_at, last_active, bytes, idle_ttl`

func scanThread(s scanner) (Thread, error) {
	var t Thread
	var c, u, a, ttl int64
	err := s.Scan(&t.ID, &t.ResourceID, &t.Title, &t.MessageCount, &t.LastSeq, &c, &u, &a, &t.Bytes, &ttl)
	t.CreatedAt, t.UpdatedAt, t.LastActiveAt = time.UnixMilli(c).UTC(), time.UnixMilli(u).UTC(), time.UnixMilli(a).UTC()
	t.IdleTTL = time.Duration(ttl) * time.Millisecond
	if ttl < 0 {
		t.IdleTTL = -1
	}
	return t, err
}

// Thread returns the thread's row, or ErrNotFound.
func (s *Store) Thread(ctx context.Context, threadID string) (Thread, error) {
	t, err := scanThread(s.stmts.QueryRow(ctx, `SELECT `+threadColumns+` FROM threads WHERE id = ?`, threadID))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("%w: thread %q", ErrNotFound, threadID)
	}
	if err != nil {
		return t, fmt.Errorf("read thread %s: %w", threadID, err)
	}
	return t, nil
}

// threadOrder orders threads by resource, then creation time and id, the
// ids in byte order on both backends (SQLite's BINARY collation; COLLATE
// "C" on Postgres, whatever the database's collation).
func (s *Store) threadOrder() string {
	return s.dialect.Text(` ORDER BY resource_id, created_at, id`, ` ORDER BY resource_id COLLATE "C", created_at, id COLLATE "C"`)
}

// Threads returns the threads of resourceID (all threads when empty),
// ordered by resource, then by creation time and id, ids in byte order.
func (s *Store) Threads(ctx context.Context, resourceID string) ([]Thread, error) {
	var out []Thread
	err := s.EachThread(ctx, resourceID, func(t Thread) error {
		out = append(out, t)
		return nil
	})
	return out, err
}

// EachThread calls fn with each thread of resourceID (all threads when
// empty) in Threads' order, scanning one query's rows one at a time: one
// pass and one snapshot of the table, holding one row. The query stays
// open while fn runs. It stops at fn's first error and returns it.
func (s *Store) EachThread(ctx context.Context, resourceID string, fn func(Thread) error) error {
	q, args := `SELECT `+threadColumns+` FROM threads`+s.threadOrder(), []any{}
	if resourceID != "" {
		q, args = `SELECT `+threadColumns+` FROM threads WHERE resource_id = ?`+s.threadOrder(), []any{resourceID}
	}
	rows, err := s.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return fmt.Errorf("list threads: %w", err)
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	return nil
}

// ThreadsPage returns at most limit threads of the given resources (all
// threads when resources is empty) after skipping offset, ordered as
// Threads (by resource, then creation time and id, in byte order). The bound is the
// query's LIMIT and OFFSET: the rows skipped are read (walked in the
// index threads_by_order, not sorted), so a page costs offset+limit rows;
// ThreadsAfter's cost does not grow with the place.
func (s *Store) ThreadsPage(ctx context.Context, resources []string, limit, offset int) ([]Thread, error) {
	q, args := `SELECT `+threadColumns+` FROM threads`, make([]any, 0, len(resources)+2)
	if len(resources) > 0 {
		names := slices.Clone(resources)
		slices.Sort(names)
		cond, in := s.resourcesIn(slices.Compact(names))
		q, args = q+` WHERE `+cond, in
	}
	return s.queryThreads(ctx, q+s.threadOrder()+` LIMIT ? OFFSET ?`, append(args, limit, offset))
}

// queryThreads runs q, a SELECT of threadColumns, and scans its rows.
func (s *Store) queryThreads(ctx context.Context, q string, args []any) ([]Thread, error) {
	rows, err := s.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	defer rows.Close()
	var out []Thread
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, fmt.Errorf("list threads: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
