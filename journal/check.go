package journal

import (
	"context"
	"database/sql"

	"github.com/mnemo-go/mnemo/internal/store"
)

// DanglingDispatches returns the dispatches whose call
// message, or whose recorded result message, is not a stored message of
// their thread (erasure deletes a dispatch with either): the engine's Check
// reports them. It reads the messages table only to test that the ids
// exist.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it; engine.Engine.Check reports these.
func DanglingDispatches(ctx context.Context, db *sql.DB) ([]DispatchKey, error) {
	q := store.Bound(db)
	rows, err := q.QueryContext(ctx, `SELECT run_id, call_id FROM dispatches d
		WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = d.message_id AND m.thread_id = d.thread_id)
		   OR (d.result_id <> '' AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = d.result_id AND m.thread_id = d.thread_id))`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DispatchKey
	for rows.Next() {
		var k DispatchKey
		if err := rows.Scan(&k.RunID, &k.CallID); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}
