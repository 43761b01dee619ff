package engine

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// The SQL erasure runs on the tables the engine still owns (threads,
// messages, message blobs, embeddings, the outbox, dispatches) and on the
// database file (VACUUM, WAL checkpoint). It moves to the message store
// (internal/msgstore) once that exists.

// erasedMsg is a message about to be erased.
type erasedMsg struct {
	id, thread, resource, content string
	seq                           int64
	role, toolCalls               string // toolCalls: the stored JSON, "" when none
	createdAt                     int64  // Unix ms
}

// eraseChunk is how many ids one IN list of an erasure holds.
const eraseChunk = 500

// selectErased reads, in tx, the messages where selects (a condition on
// messages with args), in thread and seq order.
func selectErased(ctx context.Context, tx *sql.Tx, where string, args ...any) ([]erasedMsg, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, thread_id, resource_id, seq, content, role, COALESCE(tool_calls, ''), created_at
		FROM messages WHERE `+where+` ORDER BY thread_id, seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("engine: erase: select messages: %w", err)
	}
	defer rows.Close()
	var out []erasedMsg
	for rows.Next() {
		var m erasedMsg
		if err := rows.Scan(&m.id, &m.thread, &m.resource, &m.seq, &m.content, &m.role, &m.toolCalls, &m.createdAt); err != nil {
			return nil, fmt.Errorf("engine: erase: select messages: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// selectErasedIDs reads the stored messages among ids (any number, read
// in chunks), each once.
func selectErasedIDs(ctx context.Context, tx *sql.Tx, ids []string) ([]erasedMsg, error) {
	var msgs []erasedMsg
	seen := map[string]bool{}
	for start := 0; start < len(ids); start += eraseChunk {
		chunk := ids[start:min(start+eraseChunk, len(ids))]
		part, err := selectErased(ctx, tx, `id IN (?`+strings.Repeat(",?", len(chunk)-1)+`)`, anys(chunk)...)
		if err != nil {
			return nil, err
		}
		for _, m := range part {
			if !seen[m.id] {
				seen[m.id] = true
				msgs = append(msgs, m)
			}
		}
	}
	return msgs, nil
}

// threadOwner reads the resource of thread; sql.ErrNoRows when the
// thread does not exist.
func threadOwner(ctx context.Context, tx *sql.Tx, thread string) (string, error) {
	var rid string
	err := tx.QueryRowContext(ctx, `SELECT resource_id FROM threads WHERE id = ?`, thread).Scan(&rid)
	return rid, err
}

// selectThreadErased reads the messages of thread.
func selectThreadErased(ctx context.Context, tx *sql.Tx, thread string) ([]erasedMsg, error) {
	return selectErased(ctx, tx, `thread_id = ?`, thread)
}

// selectResourceErased reads the threads of resource and its messages.
func selectResourceErased(ctx context.Context, tx *sql.Tx, resource string) ([]string, []erasedMsg, error) {
	threads, err := selectStrings(ctx, tx, `SELECT id FROM threads WHERE resource_id = ? ORDER BY id`, resource)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := selectErased(ctx, tx, `resource_id = ?`, resource)
	return threads, msgs, err
}

func selectStrings(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("engine: erase: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("engine: erase: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// deleteMessageRows deletes, in tx, the rows of msgs: embeddings,
// dispatches, full results, messages; then it queues one index removal
// per message in the outbox. It returns how many embeddings it deleted.
func deleteMessageRows(ctx context.Context, tx *sql.Tx, msgs []erasedMsg, now time.Time) (int, error) {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.id
	}
	embeddings := 0
	for start := 0; start < len(ids); start += eraseChunk {
		chunk := anys(ids[start:min(start+eraseChunk, len(ids))])
		in := `(?` + strings.Repeat(",?", len(chunk)-1) + `)`
		r, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE message_id IN `+in, chunk...)
		if err != nil {
			return 0, fmt.Errorf("engine: erase embeddings: %w", err)
		}
		n, _ := r.RowsAffected()
		embeddings += int(n)
		// Pending outbox rows of these messages stay: the drainer may hold
		// them, and deleting them would let SQLite reuse their rowids for
		// the delete rows below, which the drainer would then clear as done.
		// An index row of an erased message finds no message and is a no-op.
		// A dispatch goes with its call's or its result's message (dispatch.go).
		if _, err := tx.ExecContext(ctx, `DELETE FROM dispatches WHERE message_id IN `+in+` OR result_id IN `+in, append(chunk, chunk...)...); err != nil {
			return 0, fmt.Errorf("engine: erase dispatches: %w", err)
		}
		for _, q := range []string{`DELETE FROM message_blobs WHERE message_id IN `, `DELETE FROM messages WHERE id IN `} {
			if _, err := tx.ExecContext(ctx, q+in, chunk...); err != nil {
				return 0, fmt.Errorf("engine: erase messages: %w", err)
			}
		}
	}
	for _, m := range msgs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES (?, ?, ?, ?)`,
			opDel, m.id, m.resource, now.UnixMilli()); err != nil {
			return 0, fmt.Errorf("engine: erase: queue index removal: %w", err)
		}
	}
	return embeddings, nil
}

// shrinkThread takes n erased messages off thread's counters (count and
// bytes, recomputed from what is stored).
func shrinkThread(ctx context.Context, tx *sql.Tx, thread string, n int) error {
	if _, err := tx.ExecContext(ctx, `UPDATE threads SET message_count = message_count - ?, bytes = `+threadBytesSQL+` WHERE id = ?`, n, thread, thread); err != nil {
		return fmt.Errorf("engine: erase: update thread %s: %w", thread, err)
	}
	return nil
}

// deleteThreadRow deletes, in tx, a deleted thread's row and dispatches.
func deleteThreadRow(ctx context.Context, tx *sql.Tx, thread string) error {
	for _, q := range []string{
		`DELETE FROM threads WHERE id = ?`,
		`DELETE FROM dispatches WHERE thread_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, thread); err != nil {
			return fmt.Errorf("engine: erase thread %s: %w", thread, err)
		}
	}
	return nil
}

// entombOutbox replaces the erased resource with its tombstone in the
// pending index rows of the outbox.
func entombOutbox(ctx context.Context, tx *sql.Tx, resource, tomb string) error {
	// Index rows of erased messages are no-ops whenever they run; their
	// resource only picked a vector collection. Delete rows keep it
	// until the purge applies and removes them.
	q := `UPDATE outbox SET resource_id = ?2 WHERE resource_id = ?1 AND op <> '` + opDel + `'`
	if _, err := tx.ExecContext(ctx, q, resource, tomb); err != nil {
		return fmt.Errorf("engine: erase: tombstone resource owner: %w", err)
	}
	return nil
}

// keptCalls counts, in tx, the kept assistant messages of thread before
// seq, stored after the run composed its context (since with bound, a
// condition on seq and created_at), that made the tool call callID.
func keptCalls(ctx context.Context, tx *sql.Tx, thread string, seq int64, since string, bound []any, callID string) (int, error) {
	var earlier int
	args := append([]any{thread, seq}, bound...)
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE thread_id = ? AND role = 'assistant' AND seq < ? AND `+since+`
			AND tool_calls IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(tool_calls) WHERE json_extract(value, '$.id') = ?)`,
		append(args, callID)...).Scan(&earlier); err != nil {
		return 0, fmt.Errorf("read tool calls of thread %s: %w", thread, err)
	}
	return earlier, nil
}

// pendingDeletes counts the outbox's delete rows.
func (e *Engine) pendingDeletes(ctx context.Context) (int64, error) {
	var pending int64
	err := e.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE op = ?`, opDel).Scan(&pending)
	return pending, err
}

// lastDelete is the id of the outbox's newest delete row.
func (e *Engine) lastDelete(ctx context.Context) (sql.NullInt64, error) {
	var last sql.NullInt64
	err := e.db.QueryRowContext(ctx, `SELECT MAX(id) FROM outbox WHERE op = ?`, opDel).Scan(&last)
	return last, err
}

func (e *Engine) dueDeletes(ctx context.Context, last int64) ([]outboxRow, error) {
	rs, err := e.db.QueryContext(ctx, `SELECT id, op, message_id, resource_id, attempts FROM outbox
		WHERE op = ? AND id <= ? AND not_before <= ? ORDER BY id LIMIT ?`, opDel, last, time.Now().UnixMilli(), outboxBatch)
	if err != nil {
		return nil, fmt.Errorf("engine: read outbox: %w", err)
	}
	defer rs.Close()
	var out []outboxRow
	for rs.Next() {
		var r outboxRow
		if err := rs.Scan(&r.id, &r.op, &r.message, &r.resource, &r.attempts); err != nil {
			return nil, fmt.Errorf("engine: read outbox: %w", err)
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// vacuum rewrites the database file.
func (e *Engine) vacuum(ctx context.Context) error {
	_, err := e.db.ExecContext(ctx, `VACUUM`)
	return err
}

// walCheckpoint runs one truncating WAL checkpoint.
func (e *Engine) walCheckpoint(ctx context.Context) (busy, logFrames, done int, err error) {
	err = e.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
	return
}
