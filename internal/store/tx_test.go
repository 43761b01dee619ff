package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// sqlState is an error with a SQLSTATE, as pgx's *pgconn.PgError has.
type sqlState string

func (s sqlState) Error() string    { return "SQLSTATE " + string(s) }
func (s sqlState) SQLState() string { return string(s) }

func TestIsRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{sqlState("40001"), true},
		{sqlState("40P01"), true},
		{fmt.Errorf("store x: %w", sqlState("40P01")), true},
		{sqlState("23505"), false},
		{errors.New("40001"), false},
		{nil, false},
	} {
		if got := store.IsRetryable(tc.err); got != tc.want {
			t.Errorf("IsRetryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestRunTxRetries: a transaction aborted with a retryable SQLSTATE is
// rolled back and run again (its writes of the failed attempt are gone);
// another error is returned at once; the attempts are bounded.
func TestRunTxRetries(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = store.RunTx(ctx, db, func(tx *store.Tx) error {
		calls++
		if tx.Dialect != store.SQLite {
			t.Errorf("dialect %v", tx.Dialect)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (?)`, calls); err != nil {
			return err
		}
		if calls < 3 {
			return fmt.Errorf("insert: %w", sqlState("40P01"))
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("RunTx = %v after %d calls, want nil after 3", err, calls)
	}
	var rows, n int
	db.QueryRow(`SELECT COUNT(*), MAX(n) FROM t`).Scan(&rows, &n)
	if rows != 1 || n != 3 {
		t.Fatalf("table holds %d rows (max %d), want only the third attempt's", rows, n)
	}

	calls = 0
	err = store.RunTx(ctx, db, func(tx *store.Tx) error { calls++; return sqlState("40001") })
	if !store.IsRetryable(err) || calls != store.TxAttempts {
		t.Fatalf("always aborted: %v after %d calls, want the abort after %d", err, calls, store.TxAttempts)
	}
	calls = 0
	err = store.RunTx(ctx, db, func(tx *store.Tx) error { calls++; return sqlState("23505") })
	if calls != 1 || err == nil {
		t.Fatalf("unique violation: %v after %d calls, want it after 1", err, calls)
	}
	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	err = store.RunTx(cctx, db, func(tx *store.Tx) error { calls++; cancel(); return sqlState("40001") })
	if calls != 1 || !store.IsRetryable(err) {
		t.Fatalf("cancelled: %v after %d calls, want the abort after 1", err, calls)
	}
}
