package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemo-go/mnemo/internal/store"
)

// The memo entries (ScopeMemo) read and deleted inside a caller's
// transaction: package observe keys its model calls' answers and its
// skips by thread and range, checks in its store transaction that an
// answer's entry is still recorded, and forgets a thread's entries when
// its turns are erased. The journal owns the table, so the statements are
// here; the keys are observe's.
//
// A range [lo, hi) of keys is in byte order on both backends: SQLite's
// primary key compares bytewise (BINARY), Postgres's through COLLATE "C",
// which journal_memo_key_bytes indexes (migration 11; the scope is written
// out in the statements, as a bound one would not match the partial
// index). In the database's own collation a range need not hold the keys
// of one prefix.

// Memo is one memo entry: its key and its recorded output.
type Memo struct {
	// Key is the entry's key in ScopeMemo.
	Key string
	// Output is the recorded output, byte for byte.
	Output []byte
}

// HasMemo reports whether a memo entry is recorded under key, read in q
// (a transaction: store.Tx on Postgres; or the pool). Errors: the
// database's.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func HasMemo(ctx context.Context, q store.Conn, key string) (bool, error) {
	var one int
	err := store.Bound(q).QueryRowContext(ctx, `SELECT 1 FROM journal WHERE scope = ? AND key = ?`, ScopeMemo, key).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("journal: memo %s: %w", key, err)
	}
	return true, nil
}

// ForgetMemo deletes in tx the memo entry recorded under key; none
// recorded is a no-op. Errors: the database's.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ForgetMemo(ctx context.Context, tx store.Conn, key string) error {
	if _, err := store.Bound(tx).ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND key = ?`, ScopeMemo, key); err != nil {
		return fmt.Errorf("journal: forget memo %s: %w", key, err)
	}
	return nil
}

// MemoKeys returns, read in q, the keys of the memo entries recorded
// under key or in the byte-order range [lo, hi), in no particular order;
// none is an empty slice. Errors: the database's.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func MemoKeys(ctx context.Context, q store.Conn, key, lo, hi string) ([]string, error) {
	q = store.Bound(q)
	rows, err := q.QueryContext(ctx, store.DialectOfConn(q).Text(memoKeysSQLite, memoKeysPostgres), key, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("journal: memo keys %s, [%s, %s): %w", key, lo, hi, err)
	}
	defer rows.Close()
	keys := []string{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("journal: memo keys %s, [%s, %s): %w", key, lo, hi, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: memo keys %s, [%s, %s): %w", key, lo, hi, err)
	}
	return keys, nil
}

// Memos returns, read in q, the memo entries whose keys are in the
// byte-order range [lo, hi), in no particular order; none is an empty
// slice. Errors: the database's.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func Memos(ctx context.Context, q store.Conn, lo, hi string) ([]Memo, error) {
	q = store.Bound(q)
	rows, err := q.QueryContext(ctx, store.DialectOfConn(q).Text(memosSQLite, memosPostgres), lo, hi)
	if err != nil {
		return nil, fmt.Errorf("journal: memos [%s, %s): %w", lo, hi, err)
	}
	defer rows.Close()
	out := []Memo{}
	for rows.Next() {
		var m Memo
		if err := rows.Scan(&m.Key, &m.Output); err != nil {
			return nil, fmt.Errorf("journal: memos [%s, %s): %w", lo, hi, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: memos [%s, %s): %w", lo, hi, err)
	}
	return out, nil
}

// ForgetMemos deletes in tx the memo entries whose keys are in the
// byte-order range [lo, hi), but those under the keys of keep (nil: none
// kept). Errors: the database's.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ForgetMemos(ctx context.Context, tx store.Conn, lo, hi string, keep []string) error {
	tx = store.Bound(tx)
	q, args := forgetMemosSQL(store.DialectOfConn(tx), lo, hi, keep)
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("journal: forget memos [%s, %s): %w", lo, hi, err)
	}
	return nil
}

// forgetMemosSQL is ForgetMemos' statement in dialect d, with its
// arguments.
func forgetMemosSQL(d store.Dialect, lo, hi string, keep []string) (string, []any) {
	q, args := d.Text(forgetMemosSQLite, forgetMemosPostgres), []any{lo, hi}
	if len(keep) > 0 {
		q += ` AND key NOT IN (?` + strings.Repeat(`, ?`, len(keep)-1) + `)`
		for _, k := range keep {
			args = append(args, k)
		}
	}
	return q, args
}

// The statements on byte-order ranges of memo keys, written in SQLite's
// placeholders (store.Bound rebinds them on Postgres).
const (
	memoKeysSQLite      = `SELECT key FROM journal WHERE scope = '` + ScopeMemo + `' AND (key = ? OR key >= ? AND key < ?)`
	memoKeysPostgres    = `SELECT key FROM journal WHERE scope = '` + ScopeMemo + `' AND (key = ? OR key COLLATE "C" >= ? AND key COLLATE "C" < ?)`
	memosSQLite         = `SELECT key, output FROM journal WHERE scope = '` + ScopeMemo + `' AND key >= ? AND key < ?`
	memosPostgres       = `SELECT key, output FROM journal WHERE scope = '` + ScopeMemo + `' AND key COLLATE "C" >= ? AND key COLLATE "C" < ?`
	forgetMemosSQLite   = `DELETE FROM journal WHERE scope = '` + ScopeMemo + `' AND key >= ? AND key < ?`
	forgetMemosPostgres = `DELETE FROM journal WHERE scope = '` + ScopeMemo + `' AND key COLLATE "C" >= ? AND key COLLATE "C" < ?`
)
