package working

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Erasure's half of working memory: the functions below run inside the
// erasing caller's transaction, as observe.Invalidate does for
// observations. The caller decides which versions an erased turn tainted
// (drop) and which states go whole; working memory rebuilds or deletes
// its own rows (working_memory, working_memory_history).
//
// tx is the caller's transaction: on Postgres a *store.Tx (store.Begin),
// whose dialect the statements follow; a bare *sql.Tx is taken as SQLite's
// (store.DialectOfConn).

// Invalidate rebuilds (Rebuild) every working-memory state that resource
// owns, except those skip selects (nil skips none), without the versions
// drop selects, and returns how many versions it invalidated. The states
// are visited in key order. The first error of drop stops the erasure:
// Invalidate returns it after the Rebuild that saw it.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func Invalidate(ctx context.Context, tx store.Conn, resource string, skip func(key string) bool, initial func(Mode) string, now time.Time,
	drop func(Version) (bool, error)) (int, error) {
	tx = store.Bound(tx)
	keys, err := ownedKeys(ctx, tx, resource)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, key := range keys {
		if skip != nil && skip(key) {
			continue
		}
		var derr error
		res, err := rebuild(ctx, tx, key, initial, now, func(v Version) bool {
			tainted, err := drop(v)
			if err != nil && derr == nil {
				derr = err
			}
			return tainted
		})
		if err == nil {
			err = derr
		}
		if err != nil {
			return 0, fmt.Errorf("working: erase: rebuild working memory: %w", err)
		}
		total += res.Invalidated
	}
	return total, nil
}

// ownedKeys returns the keys of the states resource owns, in key order
// (byte order, as SQLite's BINARY collation: on Postgres whatever the
// database's collation). tx is bound (store.Bound).
func ownedKeys(ctx context.Context, tx store.Conn, resource string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, store.DialectOfConn(tx).Text(
		`SELECT scope FROM working_memory WHERE resource_id = ? ORDER BY scope`,
		`SELECT scope FROM working_memory WHERE resource_id = $1 ORDER BY scope COLLATE "C"`), resource)
	if err != nil {
		return nil, fmt.Errorf("working: erase: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("working: erase: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Delete deletes, in tx, the state of key and its history, and returns
// how many rows it deleted (the state and its versions).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func Delete(ctx context.Context, tx store.Conn, key string) (int, error) {
	tx = store.Bound(tx)
	total := 0
	for _, q := range []string{`DELETE FROM working_memory WHERE scope = ?`, `DELETE FROM working_memory_history WHERE scope = ?`} {
		r, err := tx.ExecContext(ctx, q, key)
		if err != nil {
			return 0, fmt.Errorf("working: erase working memory %s: %w", key, err)
		}
		n, _ := r.RowsAffected()
		total += int(n)
	}
	return total, nil
}

// DeleteOwned deletes, in tx, every state resource owns, whatever its key
// (states are bound to their owner when written, Config.OwnerOf), and
// their histories; it returns how many rows it deleted.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DeleteOwned(ctx context.Context, tx store.Conn, resource string) (int, error) {
	tx = store.Bound(tx)
	total := 0
	for _, q := range []string{`DELETE FROM working_memory WHERE resource_id = ?`, `DELETE FROM working_memory_history WHERE resource_id = ?`} {
		r, err := tx.ExecContext(ctx, q, resource)
		if err != nil {
			return 0, fmt.Errorf("working: erase working memory of the resource: %w", err)
		}
		n, _ := r.RowsAffected()
		total += int(n)
	}
	return total, nil
}
