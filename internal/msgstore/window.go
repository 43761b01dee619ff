package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// This file holds the reads of a thread that LoadContext and Replay make
// beside the message rows themselves (message.go): the query it falls back
// on, the size of the unobserved tail, and the walk over a recorded window.

// LastUserContent returns the content of the newest user message of the
// thread, or "" when it has none (or the thread is unknown).
func (s *Store) LastUserContent(ctx context.Context, threadID string) (string, error) {
	var c string
	err := s.conn.QueryRowContext(ctx, `SELECT content FROM messages WHERE thread_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1`, threadID).Scan(&c)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("read last user message of %s: %w", threadID, err)
	}
	return c, nil
}

// CountAfter returns how many messages of the thread have a seq above seq
// (the messages after an observed watermark).
func (s *Store) CountAfter(ctx context.Context, threadID string, seq int64) (int, error) {
	var n int
	if err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE thread_id = ? AND seq > ?`, threadID, seq).Scan(&n); err != nil {
		return 0, fmt.Errorf("count messages of %s after seq %d: %w", threadID, seq, err)
	}
	return n, nil
}

// SeqRef names one stored message of a thread without its content.
type SeqRef struct {
	ID   string
	Seq  int64
	Role string
}

// WalkFrom calls fn with the thread's messages from fromSeq on, in seq
// order, until fn returns false or the thread ends. It reads ids, seqs and
// roles only.
func (s *Store) WalkFrom(ctx context.Context, threadID string, fromSeq int64, fn func(SeqRef) bool) error {
	rows, err := s.conn.QueryContext(ctx, `SELECT id, seq, role FROM messages WHERE thread_id = ? AND seq >= ? ORDER BY seq`, threadID, fromSeq)
	if err != nil {
		return fmt.Errorf("walk messages of %s: %w", threadID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r SeqRef
		if err := rows.Scan(&r.ID, &r.Seq, &r.Role); err != nil {
			return fmt.Errorf("walk messages of %s: %w", threadID, err)
		}
		if !fn(r) {
			return nil
		}
	}
	return rows.Err()
}
