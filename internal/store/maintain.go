package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Checkpoint runs one truncating WAL checkpoint (PRAGMA
// wal_checkpoint(TRUNCATE)): it copies the WAL into the database file and
// truncates it. busy is non-zero when it could not finish within SQLite's
// busy timeout: a reader held an old snapshot, or another connection
// outside the write gate (another process) held the write lock, which
// SQLite reports in busy, not as an error (the checkpoint goes on
// passively); logFrames and done count the WAL's frames and those copied.
// On a database Open returned it first waits for the write gate (gate.go),
// as a writer does, since it takes SQLite's write lock; an ended ctx stops
// that wait with its error, wrapped, and a wait of BusyTimeoutMillis ends
// with ErrWriteBusy. SQLITE_BUSY as an error (another process holding the
// file in locking_mode EXCLUSIVE, so no connection opens) matches
// ErrDatabaseLocked, as any call's open does (busy.go).
func Checkpoint(ctx context.Context, db *sql.DB) (busy, logFrames, done int, err error) {
	g := gateOf(db)
	if g != nil {
		if err := g.enter(ctx, "checkpoint"); err != nil {
			return 0, 0, 0, err
		}
		defer g.leave()
	}
	err = db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
	if g != nil {
		err = writeBusy("checkpoint", err)
	}
	return busy, logFrames, done, err
}

// CheckpointPassive runs one passive WAL checkpoint (PRAGMA
// wal_checkpoint(PASSIVE)): it copies what it can of the WAL into the
// database file without waiting for, or blocking, readers and writers. On
// a database found damaged (Damaged, or DamageMarked) it does nothing: the WAL stays as it
// is for salvage (damage.go).
func CheckpointPassive(ctx context.Context, db *sql.DB) error {
	if v, ok := damages.Load(db); ok && v.(*damage).keepsWAL() {
		return nil
	}
	var busy, logFrames, done int
	return db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done)
}

// Reindex rebuilds every index of the database (REINDEX): each index
// b-tree is built again from its table and its old pages are freed, which
// secure_delete zeroes; a WITHOUT ROWID table's b-tree (its primary key's)
// is rebuilt too. A page split copies cells within an index page and
// leaves the old bytes in the gap between its cell pointers and its cells;
// secure_delete zeroes a deleted cell where it lives but not those copies,
// so after an erasure pieces of an erased key (a resource or thread id)
// can survive there until the index is rebuilt. It takes the write lock
// for its duration: about the time to sort every index's keys.
func Reindex(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `REINDEX`)
	return err
}

// ReindexNamed rebuilds the named b-trees (REINDEX name, one at a time),
// as Reindex does every index: each one's old pages are freed and zeroed.
// A name is one IndexesHolding returned (sqlite_schema's): an index, or a
// WITHOUT ROWID table, whose REINDEX rebuilds its primary key b-tree (the
// table itself, rows kept) and its other indexes.
func ReindexNamed(ctx context.Context, db *sql.DB, names []string) error {
	for _, n := range names {
		if _, err := db.ExecContext(ctx, `REINDEX `+quoteIdent(n)); err != nil {
			return fmt.Errorf("reindex %s: %w", n, err)
		}
	}
	return nil
}

// IndexesHolding returns, in sqlite_schema's order, the names of the
// indexes of the database (those SQLite makes for a PRIMARY KEY or UNIQUE
// constraint too) and of its WITHOUT ROWID tables one of whose pages holds
// reports true for: every page of each b-tree (leaf, interior and
// overflow), whole, live cells and unused space alike, as SQLite sees it
// (the WAL's newer pages included). A WITHOUT ROWID table (message_calls)
// is an index b-tree keyed by its primary key: its pages split and
// rebalance as an index's do, and keep copies of cells in their unused
// space the same way. The pages are found with the dbstat table and read
// with sqlite_dbpage (both compiled into modernc's SQLite), one b-tree
// after the other, each in its own read; a b-tree is read up to its first
// page that holds. It stops with ctx's error.
func IndexesHolding(ctx context.Context, db *sql.DB, holds func(page []byte) bool) ([]string, error) {
	names, err := indexNames(ctx, db)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		found, err := indexHolds(ctx, db, n, holds)
		if err != nil {
			return nil, fmt.Errorf("read the pages of index %s: %w", n, err)
		}
		if found {
			out = append(out, n)
		}
	}
	return out, nil
}

// indexNames returns the names of the database's indexes and WITHOUT
// ROWID tables (pragma_table_list's wr), in sqlite_schema's order.
func indexNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'index'
		OR type = 'table' AND name IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND wr = 1)
		ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("list indexes: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list indexes: %w", err)
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// indexHolds reports whether a page of the b-tree name (an index or a
// WITHOUT ROWID table) holds what holds looks for.
func indexHolds(ctx context.Context, db *sql.DB, name string, holds func([]byte) bool) (bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT p.data FROM dbstat AS s JOIN sqlite_dbpage AS p ON p.pgno = s.pageno WHERE s.name = ?`, name)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var page sql.RawBytes
		if err := rows.Scan(&page); err != nil {
			return false, err
		}
		if holds(page) {
			return true, nil
		}
	}
	return false, rows.Err()
}

// quoteIdent quotes an SQL identifier (doubling its double quotes).
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Vacuum rewrites the database file (VACUUM), leaving no free page or
// free space in a page that could hold a deleted cell's bytes.
func Vacuum(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `VACUUM`)
	return err
}
