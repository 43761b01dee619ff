package store

import (
	"context"
	"database/sql"
	"sync"
)

// This file is the write check: a statement a database's opener registers
// (on Postgres, internal/pgstore's schema version check) that every write
// transaction of every owner runs first, through the helpers the owners
// write with: RunTx, Begin, Stmts.Exec and Bound's ExecContext. A process
// whose schema a newer build migrated while it ran then stops writing to
// every table, not only the engine's (walk35, pgup1: an old build's rows
// in a migrated schema are read wrongly by the new one).

// WriteCheck is run by RunTx, Begin (unless opts.ReadOnly), Stmts.Exec and
// the ExecContext of a Conn Bound to a *sql.DB, first in the write
// transaction tx, on a database it was registered for (SetWriteCheck). A
// non-nil error ends the transaction, rolled back with nothing written,
// and is returned as it is. It runs once per attempt of RunTx.
type WriteCheck func(ctx context.Context, tx Conn) error

// writeChecks maps each *sql.DB given to SetWriteCheck, until CloseDB, to
// its WriteCheck.
var writeChecks sync.Map

// SetWriteCheck registers check as db's WriteCheck (nil removes it).
// internal/pgstore registers its schema version check on each *sql.DB it
// returns (OpenDB, DB); SQLite databases have none. CloseDB forgets it.
func SetWriteCheck(db *sql.DB, check WriteCheck) {
	if check == nil {
		writeChecks.Delete(db)
		return
	}
	writeChecks.Store(db, check)
}

// CheckWrites runs db's WriteCheck on db itself, outside a transaction:
// nil when it has none (SQLite) or when a write would pass it now, else
// the check's error (on Postgres pgstore.ErrSchemaMigrated once a newer
// build migrated the schema). Health checks use it (engine.Ping), so a
// process that refuses every write is not reported healthy.
func CheckWrites(ctx context.Context, db *sql.DB) error {
	if check := writeCheck(db); check != nil {
		return check(ctx, db)
	}
	return nil
}

// writeCheck returns db's WriteCheck, nil when it has none.
func writeCheck(db *sql.DB) WriteCheck {
	if v, ok := writeChecks.Load(db); ok {
		return v.(WriteCheck)
	}
	return nil
}

// execChecked runs one statement (exec, on the transaction it is given)
// as a write of db: alone when db has no WriteCheck, as on SQLite, where
// the statement is its own transaction; else in a transaction of its own
// after the check (RunTx), so that an autocommit write of an owner (the
// journal's runs and memctx, the outbox, a working-memory config) is
// refused like a transaction's. That costs BEGIN, the check and COMMIT:
// three round trips more per statement (docs/postgres.md, "Upgrading").
func execChecked(ctx context.Context, db *sql.DB, alone func() (sql.Result, error), exec func(tx *Tx) (sql.Result, error)) (sql.Result, error) {
	if writeCheck(db) == nil {
		return alone()
	}
	var res sql.Result
	err := RunTx(ctx, db, func(tx *Tx) error {
		var err error
		res, err = exec(tx)
		return err
	})
	return res, err
}
