package journal

import (
	"context"
	"fmt"
	"slices"

	"github.com/mnemo-go/mnemo/internal/store"
)

// ForgetToolResults deletes in tx the tool applications recorded for
// resource (scope ScopeTool, any thread and run) whose recorded result
// lists one of the observation ids obs, and returns how many it deleted.
// The engine's erasure uses it for the results of recallObservations
// calls that returned an observation or reflection the erasure
// invalidated: a result is a memo of derived text, and the same call
// handled again must search anew rather than return the erased text
// (DESIGN.md, "Erasure").
//
// A result lists the ids tools.RecalledObservationIDs reads from it (the
// "id" string of each object of its "observations" array). The schema
// records those ids as the result is inserted (table journal_tool_obs:
// SQLite's migrations 16 and 18, Postgres's 14 and 16) and deletes them
// with it, so each id costs one index lookup and each result found one
// primary-key delete, whatever else the resource recorded. (One statement
// joining the two was planned from the resource's index on SQLite, every
// tool result of the resource read.)
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ForgetToolResults(ctx context.Context, tx store.Conn, resource string, obs []string) (int, error) {
	tx = store.Bound(tx)
	var keys []string
	for _, id := range obs {
		k, err := recalledKeys(ctx, tx, id)
		if err != nil {
			return 0, err
		}
		keys = append(keys, k...)
	}
	slices.Sort(keys)
	n := 0
	for _, k := range slices.Compact(keys) {
		res, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND key = ? AND resource_id = ?`, ScopeTool, k, resource)
		if err != nil {
			return n, fmt.Errorf("journal: erase: tool result %s: %w", k, err)
		}
		d, err := res.RowsAffected()
		if err != nil {
			return n, fmt.Errorf("journal: erase: tool result %s: %w", k, err)
		}
		n += int(d)
	}
	return n, nil
}

// recalledKeys returns the keys of the tool results whose recorded result
// lists observation id (journal_tool_obs), any resource's.
func recalledKeys(ctx context.Context, tx store.Conn, id string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT key FROM journal_tool_obs WHERE obs_id = ? AND scope = ?`, id, ScopeTool)
	if err != nil {
		return nil, fmt.Errorf("journal: erase: tool results holding observation %s: %w", id, err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("journal: erase: tool results holding observation %s: %w", id, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: erase: tool results holding observation %s: %w", id, err)
	}
	return keys, nil
}
