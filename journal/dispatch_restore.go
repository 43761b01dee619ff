package journal

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/internal/store"
)

// A dispatch carried from another store (mnemo export, then import) is
// written back as that store recorded it: RestoreDispatch writes a row
// whole, ThreadDispatches reads a thread's rows a page at a time.

// RestoreDispatch records, in tx, the dispatch d as another store
// recorded it: its thread, resource, message id, tool name and BegunAt,
// and, when d.ResultID is not "", its result, Failed and SettledAt. A
// second record of one (run, call) is a constraint error. The caller
// checks that d's messages are stored and claims its run.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; engine.Engine.RestoreDispatch is the library's way.
func RestoreDispatch(ctx context.Context, tx store.Conn, d Dispatch) error {
	tx = store.Bound(tx)
	var settled sql.NullInt64
	if d.ResultID != "" {
		settled = sql.NullInt64{Int64: d.SettledAt.UnixMilli(), Valid: true}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO dispatches (run_id, call_id, thread_id, resource_id, message_id, name, result_id, failed, begun_at, settled_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, d.RunID, d.CallID, d.ThreadID, d.ResourceID, d.MessageID, d.Name,
		d.ResultID, d.Failed && d.ResultID != "", d.BegunAt.UnixMilli(), settled)
	if err != nil {
		return fmt.Errorf("journal: restore dispatch %q of run %s: %w", d.CallID, d.RunID, err)
	}
	return nil
}

// ThreadDispatches reads, through q (a transaction or the pool), up to
// limit dispatches of threadID after the key after (the zero key: from
// the first), in byte order of run id, then call id, each with its call
// message's seq and tool calls as ReadDispatch gives them; fewer than
// limit when the thread has no more. Errors: the database's (ctx's when
// cancelled).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ThreadDispatches(ctx context.Context, q Querier, threadID string, after DispatchKey, limit int) ([]Dispatch, error) {
	return MessageDispatches(ctx, q, threadID, nil, after, limit)
}

// MessageDispatches is ThreadDispatches keeping only the dispatches whose
// call one of messageIDs makes (all of the thread's when messageIDs is
// empty): a page of messages marks its dispatched calls, however many
// dispatches the thread holds (small64: the inspector marked only those
// among the thread's first 100). It seeks dispatches_by_thread (thread,
// message) once per id.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func MessageDispatches(ctx context.Context, q Querier, threadID string, messageIDs []string, after DispatchKey, limit int) ([]Dispatch, error) {
	q = store.Bound(q)
	where, args := ` WHERE d.thread_id = ?`, []any{threadID}
	if len(messageIDs) > 0 {
		where += ` AND d.message_id IN (?` + strings.Repeat(`, ?`, len(messageIDs)-1) + `)`
		for _, id := range messageIDs {
			args = append(args, id)
		}
	}
	args = append(args, after.RunID, after.RunID, after.CallID, limit)
	rows, err := q.QueryContext(ctx, dispatchSelect+where+byRun(q, ` AND (d.run_id > ? OR (d.run_id = ? AND d.call_id > ?)) ORDER BY d.run_id, d.call_id`)+` LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("journal: list dispatches of thread %s: %w", threadID, err)
	}
	defer rows.Close()
	var out []Dispatch
	for rows.Next() {
		d, err := scanDispatch(rows)
		if err != nil {
			return nil, fmt.Errorf("journal: list dispatches of thread %s: %w", threadID, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: list dispatches of thread %s: %w", threadID, err)
	}
	return out, nil
}
