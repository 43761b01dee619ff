package engine

import (
	"context"
	"fmt"
	"strings"
)

// CheckError lists what Check found wrong. It wraps ErrInconsistent.
type CheckError struct {
	Problems []string
}

// Error implements error; it lists up to ten problems.
func (e *CheckError) Error() string {
	ps := e.Problems
	more := ""
	if len(ps) > 10 {
		ps, more = ps[:10], fmt.Sprintf("; and %d more", len(e.Problems)-10)
	}
	return fmt.Sprintf("engine: inconsistent: %s%s", strings.Join(ps, "; "), more)
}

// Unwrap returns ErrInconsistent.
func (e *CheckError) Unwrap() error { return ErrInconsistent }

// Check verifies the store and its derived indexes, after draining the
// outbox: seqs are 1…n without gaps in every thread and match the thread's
// counters; every stored message is in the lexical index and has an
// embedding by the configured embedder, and neither index holds anything
// else. It returns a *CheckError (errors.Is ErrInconsistent) listing the
// problems, or nil. Messages whose embedding is still being retried are
// reported too: they are not yet in the vector index.
func (e *Engine) Check(ctx context.Context) error {
	if err := e.SyncIndexes(ctx); err != nil {
		return err
	}
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	// Erased seqs leave tombstones (erase.go): stored + erased must cover
	// 1..last_seq exactly.
	rows, err := e.db.QueryContext(ctx, `SELECT t.id, t.last_seq, t.message_count, COUNT(m.id), COALESCE(MIN(m.seq), 0), COALESCE(MAX(m.seq), 0),
		(SELECT COUNT(*) FROM journal j WHERE j.scope = '`+ScopeErased+`' AND j.thread_id = t.id)
		FROM threads t LEFT JOIN messages m ON m.thread_id = t.id GROUP BY t.id`)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	for rows.Next() {
		var id string
		var last, count, n, lo, hi, erased int64
		if err := rows.Scan(&id, &last, &count, &n, &lo, &hi, &erased); err != nil {
			rows.Close()
			return fmt.Errorf("engine: check: %w", err)
		}
		if n > 0 && (lo < 1 || hi > last) || n+erased != last {
			add("thread %s: seqs %d..%d for %d messages and %d erased, last_seq %d (gap)", id, lo, hi, n, erased, last)
		}
		if count != n {
			add("thread %s: message_count %d, %d messages stored", id, count, n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}

	stored := map[string]bool{}
	if err := e.collect(ctx, stored, `SELECT id FROM messages`); err != nil {
		return err
	}
	ix := e.idx.index()
	if ix == nil {
		add("indexes are not open")
		return &CheckError{Problems: problems}
	}
	lex, err := ix.Lexical().IDs()
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	diff(stored, lex, "lexical index", add)
	vec := map[string]bool{}
	if err := e.collect(ctx, vec, `SELECT message_id FROM embeddings WHERE embedder = ?`, ix.Embedder().ID()); err != nil {
		return err
	}
	diff(stored, vec, "vector index ("+ix.Embedder().ID()+")", add)
	var pending int64
	if err := e.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox`).Scan(&pending); err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	if pending > 0 {
		add("%d outbox rows still pending (retrying after failures)", pending)
	}
	if len(problems) > 0 {
		return &CheckError{Problems: problems}
	}
	return nil
}

func (e *Engine) collect(ctx context.Context, into map[string]bool, q string, args ...any) error {
	rows, err := e.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("engine: check: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("engine: check: %w", err)
		}
		into[id] = true
	}
	return rows.Err()
}

// diff reports messages missing from an index and index entries that are
// not stored messages.
func diff(stored, indexed map[string]bool, what string, add func(string, ...any)) {
	missing, orphans := 0, 0
	var exMissing, exOrphan string
	for id := range stored {
		if !indexed[id] {
			missing++
			exMissing = id
		}
	}
	for id := range indexed {
		if !stored[id] {
			orphans++
			exOrphan = id
		}
	}
	if missing > 0 {
		add("%d stored messages missing from the %s (e.g. %s)", missing, what, exMissing)
	}
	if orphans > 0 {
		add("%d entries in the %s are not stored messages (e.g. %s)", orphans, what, exOrphan)
	}
}
