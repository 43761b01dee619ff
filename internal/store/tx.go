package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry bounds of RunTx for a transaction Postgres aborted to resolve a
// conflict (IsRetryable): it runs fn at most TxAttempts times, waiting a
// random time up to txBackoff << attempt between attempts.
const (
	TxAttempts = 5
	txBackoff  = 5 * time.Millisecond
)

// RunTx runs fn in one write transaction on db (BEGIN IMMEDIATE on SQLite,
// see Open): it commits when fn returns nil and rolls back when fn returns
// an error or panics (the panic goes on). fn receives a *Tx carrying db's
// dialect (DialectOf), so every owner it is passed to speaks db's SQL.
//
// A transaction Postgres aborts with a serialization failure (SQLSTATE
// 40001) or a deadlock (40P01), in fn or at commit, is rolled back and run
// again, up to TxAttempts times in all, after a jittered backoff that
// honours ctx; fn must therefore be safe to run again (it starts from the
// state it was given, not from what a rolled-back attempt left). SQLite
// never reports either.
//
// On a database with a WriteCheck (Postgres: the schema version, see
// SetWriteCheck) the check runs first in each attempt; its error is
// returned as it is, fn not run, nothing written.
//
// fn's error is returned as it is; a failed begin or commit is wrapped
// ("begin: …", "commit: …"). A commit refused because ctx was done by
// then matches ctx.Err() (CommitError).
func RunTx(ctx context.Context, db *sql.DB, fn func(tx *Tx) error) error {
	dialect := DialectOf(db)
	for attempt := 1; ; attempt++ {
		err := runTx(ctx, db, dialect, fn)
		if err == nil || attempt >= TxAttempts || !IsRetryable(err) {
			return err
		}
		wait := rand.N(txBackoff<<attempt) + time.Millisecond
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// runTx is one attempt of RunTx.
func runTx(ctx context.Context, db *sql.DB, dialect Dialect, fn func(tx *Tx) error) (err error) {
	stx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	tx := &Tx{Tx: stx, Dialect: dialect}
	defer func() {
		if p := recover(); p != nil {
			stx.Rollback()
			panic(p)
		}
		if err != nil {
			stx.Rollback()
		}
	}()
	if check := writeCheck(db); check != nil {
		if err = check(ctx, tx); err != nil {
			return err
		}
	}
	if err = fn(tx); err != nil {
		return err
	}
	if err = stx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", CommitError(ctx, err))
	}
	return nil
}

// CommitError gives the error of a Commit of a transaction begun with ctx
// (sql.DB.BeginTx): err itself, unless ctx is done and err is
// database/sql's refusal to commit because of it. database/sql rolls a
// transaction back once its context is done, and Commit then returns
// ctx.Err(), or sql.ErrTxDone when the rollback came first, which matches
// neither context.Canceled nor context.DeadlineExceeded. Either way
// nothing was committed (the driver's COMMIT never ran); that refusal is
// returned as ctx.Err() wrapped, saying so. An error of the COMMIT itself
// is returned as it is, whatever ctx: whether it took effect is unknown.
func CommitError(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if err == nil || cerr == nil || !(errors.Is(err, sql.ErrTxDone) || errors.Is(err, cerr)) {
		return err
	}
	return fmt.Errorf("%w: rolled back, nothing committed", cerr)
}

// IsRetryable reports whether err (wrapped or not) is Postgres's abort of a
// transaction to resolve a conflict with another: serialization_failure
// (SQLSTATE 40001) or deadlock_detected (40P01). Running the transaction
// again may succeed. It reads the SQLSTATE through a SQLState() string
// method (pgx's *pgconn.PgError has one), so this package does not link
// pgx.
func IsRetryable(err error) bool {
	var pg interface{ SQLState() string }
	if !errors.As(err, &pg) {
		return false
	}
	switch pg.SQLState() {
	case "40001", "40P01":
		return true
	}
	return false
}
