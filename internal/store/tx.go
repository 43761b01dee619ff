package store

import (
	"context"
	"database/sql"
	"fmt"
)

// RunTx runs fn in one write transaction on db (BEGIN IMMEDIATE, see Open):
// it commits when fn returns nil and rolls back when fn returns an error or
// panics (the panic goes on). fn's error is returned as it is; a failed
// begin or commit is wrapped ("begin: …", "commit: …").
func RunTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			tx.Rollback()
			panic(p)
		}
		if err != nil {
			tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
