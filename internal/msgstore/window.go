package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
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

// CountTokensAfter returns how many messages of the thread have a seq
// above seq, and the sum of their estimated tokens (the tokens column),
// summed in SQL: no row is read out.
func (s *Store) CountTokensAfter(ctx context.Context, threadID string, seq int64) (n, tokens int, err error) {
	err = s.stmts.QueryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(tokens), 0) FROM messages WHERE thread_id = ? AND seq > ?`, threadID, seq).Scan(&n, &tokens)
	if err != nil {
		return 0, 0, fmt.Errorf("count messages of %s after seq %d: %w", threadID, seq, err)
	}
	return n, tokens, nil
}

// CountBetween returns how many messages of the thread have
// fromSeq <= seq <= toSeq.
func (s *Store) CountBetween(ctx context.Context, threadID string, fromSeq, toSeq int64) (int, error) {
	var n int
	if err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE thread_id = ? AND seq BETWEEN ? AND ?`, threadID, fromSeq, toSeq).Scan(&n); err != nil {
		return 0, fmt.Errorf("count messages of %s in seqs %d..%d: %w", threadID, fromSeq, toSeq, err)
	}
	return n, nil
}

// tokenPage is how many (seq, tokens) rows NewestWithinTokens reads a query.
const tokenPage = 512

// NewestWithinTokens returns how many of the thread's newest messages with
// a seq above afterSeq fit, together, in maxTokens estimated tokens (their
// tokens column; maxTokens >= 0). It reads seqs and token counts only, a
// page of 512 rows a query, newest first, and stops at the first message
// that does not fit: the read is bounded by maxTokens (every message
// counts at least one token), not by the thread's length.
func (s *Store) NewestWithinTokens(ctx context.Context, threadID string, afterSeq int64, maxTokens int) (int, error) {
	n, sum, below := 0, 0, int64(math.MaxInt64)
	for {
		rows, err := s.stmts.Query(ctx, `SELECT seq, tokens FROM messages WHERE thread_id = ? AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
			threadID, afterSeq, below, tokenPage)
		if err != nil {
			return 0, fmt.Errorf("read token counts of %s: %w", threadID, err)
		}
		read, full, err := sumTokens(rows, &sum, &below, maxTokens)
		if err != nil {
			return 0, fmt.Errorf("read token counts of %s: %w", threadID, err)
		}
		n += read
		if full || read < tokenPage {
			return n, nil
		}
	}
}

// sumTokens adds a page's token counts to *sum while they fit in
// maxTokens, and sets *below to the last seq it read. It returns how many
// fitted and whether one did not (the window is full).
func sumTokens(rows *sql.Rows, sum *int, below *int64, maxTokens int) (int, bool, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		var seq int64
		var tok int
		if err := rows.Scan(&seq, &tok); err != nil {
			return 0, false, err
		}
		tok = max(tok, 1)
		if *sum > maxTokens-tok {
			return n, true, nil
		}
		*sum += tok
		*below = seq
		n++
	}
	return n, false, rows.Err()
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

// TurnRef is one stored message of a thread as far as where its pending
// turn starts depends on it (observe.PendingStart): its seq, its role and
// whether it makes tool calls.
type TurnRef struct {
	Seq   int64
	Role  string
	Calls bool // the message makes tool calls (its tool_calls column is not NULL)
}

// RecentTurns returns the last n messages of the thread in seq order
// without their contents, names, tool calls or metadata (LoadContext
// looks for the pending turn in the last 64: reading them whole was ~40
// KB a call, issue 14 in BENCHMARKS.md; their tool calls, up to
// MaxToolCalls arguments of 256 KiB each a row, were read past
// Limits.MaxAnswerBytes).
func (s *Store) RecentTurns(ctx context.Context, threadID string, n int) ([]TurnRef, error) {
	rows, err := s.stmts.Query(ctx, `SELECT seq, role, tool_calls IS NOT NULL FROM messages WHERE thread_id = ? ORDER BY seq DESC LIMIT ?`, threadID, n)
	if err != nil {
		return nil, fmt.Errorf("read recent turns of %s: %w", threadID, err)
	}
	defer rows.Close()
	out := make([]TurnRef, 0, min(max(n, 0), 1024))
	for rows.Next() {
		var r TurnRef
		if err := rows.Scan(&r.Seq, &r.Role, &r.Calls); err != nil {
			return nil, fmt.Errorf("read recent turns of %s: %w", threadID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read recent turns of %s: %w", threadID, err)
	}
	slices.Reverse(out)
	return out, nil
}
