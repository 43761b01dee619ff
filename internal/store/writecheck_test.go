package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// errMigrated stands for the check's refusal (pgstore's ErrSchemaMigrated).
var errMigrated = errors.New("migrated")

// TestWriteCheck: on a database with a WriteCheck, each way an owner
// writes (RunTx, Begin, Stmts.Exec) runs the check first and, when it
// refuses, returns its error and writes nothing; a read-only Begin does
// not run it; once SetWriteCheck(nil) forgets it, writes go through. Here
// on SQLite, where no opener registers one and Bound returns the *sql.DB
// itself; on Postgres pgstore registers the schema version check, and
// engine's TestPostgresEveryOwnerChecksVersion covers every owner's
// writes, Bound's ExecContext among them (the journal's retention).
func TestWriteCheck(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	if _, err := db.ExecContext(ctx, `CREATE TABLE w (v TEXT)`); err != nil {
		t.Fatal(err)
	}
	checks := 0
	store.SetWriteCheck(db, func(ctx context.Context, tx store.Conn) error {
		checks++
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM w`).Scan(&n); err != nil {
			return err
		}
		return errMigrated
	})
	const insert = `INSERT INTO w (v) VALUES (?)`
	stmts := store.NewStmts(db)
	writes := []struct {
		name  string
		write func() error
	}{
		{"RunTx", func() error {
			return store.RunTx(ctx, db, func(tx *store.Tx) error {
				_, err := tx.ExecContext(ctx, insert, "runtx")
				return err
			})
		}},
		{"Begin", func() error {
			tx, err := store.Begin(ctx, db, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, insert, "begin"); err != nil {
				return err
			}
			return tx.Commit()
		}},
		{"StmtsExec", func() error { _, err := stmts.Exec(ctx, insert, "stmts"); return err }},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			before := checks
			if err := w.write(); !errors.Is(err, errMigrated) {
				t.Fatalf("%s: %v, want the check's error", w.name, err)
			}
			if checks != before+1 {
				t.Errorf("%s ran the check %d times, want 1", w.name, checks-before)
			}
			if n := rows(t, db); n != 0 {
				t.Fatalf("%s wrote %d rows past the check", w.name, n)
			}
		})
	}
	t.Run("ReadOnlyBegin", func(t *testing.T) {
		before := checks
		tx, err := store.Begin(ctx, db, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatalf("read-only Begin: %v", err)
		}
		tx.Rollback()
		if checks != before {
			t.Errorf("a read-only Begin ran the check")
		}
	})
	store.SetWriteCheck(db, nil)
	for _, w := range writes {
		if err := w.write(); err != nil {
			t.Fatalf("%s without a check: %v", w.name, err)
		}
	}
	if n := rows(t, db); n != len(writes) {
		t.Fatalf("%d rows without a check, want %d", n, len(writes))
	}
}

// rows counts w's rows.
func rows(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM w`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
