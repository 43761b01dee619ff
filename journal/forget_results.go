package journal

import (
	"context"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ForgetToolResults deletes in tx the tool applications recorded for
// resource (scope ScopeTool, any thread and run) whose recorded result
// drop reports true, and returns how many it deleted. The engine's erasure
// uses it for the results of recallObservations calls that returned an
// observation the erasure invalidated: a result is a memo of derived
// text, and the same call handled again must search anew rather than
// return the erased text (DESIGN.md, "Erasure"). It reads the resource's
// applications through the journal_by_resource index.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ForgetToolResults(ctx context.Context, tx store.Conn, resource string, drop func(result []byte) bool) (int, error) {
	tx = store.Bound(tx)
	rows, err := tx.QueryContext(ctx, `SELECT key, output FROM journal WHERE scope = ? AND resource_id = ?`, ScopeTool, resource)
	if err != nil {
		return 0, fmt.Errorf("journal: erase: read tool results: %w", err)
	}
	var keys []string
	for rows.Next() {
		var key string
		var out []byte
		if err := rows.Scan(&key, &out); err != nil {
			rows.Close()
			return 0, fmt.Errorf("journal: erase: read tool results: %w", err)
		}
		if drop(out) {
			keys = append(keys, key)
		}
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("journal: erase: read tool results: %w", err)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("journal: erase: read tool results: %w", err)
	}
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND key = ?`, ScopeTool, k); err != nil {
			return 0, fmt.Errorf("journal: erase: tool result %s: %w", k, err)
		}
	}
	return len(keys), nil
}
