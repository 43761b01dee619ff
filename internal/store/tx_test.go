package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
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

// doneCtx is a context made done on demand with the error given: a
// deadline that runs out exactly when a test says, with no timer.
type doneCtx struct {
	context.Context
	done chan struct{}
	err  error
}

func newDoneCtx(err error) *doneCtx {
	return &doneCtx{Context: context.Background(), done: make(chan struct{}), err: err}
}

func (c *doneCtx) Done() <-chan struct{} { return c.done }

func (c *doneCtx) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// TestRunTxCommitAfterCtxDone: a context done after fn's last statement
// and before the commit (database/sql has rolled the transaction back)
// fails RunTx with an error matching ctx.Err(), not sql.ErrTxDone alone
// ("commit: sql: transaction has already been committed or rolled back"
// matched neither context error), and nothing is stored.
func TestRunTxCommitAfterCtxDone(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for _, want := range []error{context.Canceled, context.DeadlineExceeded} {
		ctx := newDoneCtx(want)
		err := store.RunTx(ctx, db, func(tx *store.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO t VALUES (1)`); err != nil {
				return err
			}
			close(ctx.done)
			waitRolledBack(tx)
			return nil
		})
		if !errors.Is(err, want) || !strings.Contains(err.Error(), "nothing committed") {
			t.Errorf("ctx done (%v) before commit: RunTx = %v, want an error matching it saying nothing was committed", want, err)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("table holds %d rows (%v), want none", n, err)
	}
}

// waitRolledBack returns once database/sql has rolled tx back after its
// context was done (a statement then fails with sql.ErrTxDone).
func waitRolledBack(tx *store.Tx) {
	for {
		_, err := tx.ExecContext(context.Background(), `SELECT 1`)
		if errors.Is(err, sql.ErrTxDone) {
			return
		}
		runtime.Gosched()
	}
}

// TestCommitError: CommitError passes an error through unless ctx is done
// and the error is database/sql's refusal to commit because of it.
func TestCommitError(t *testing.T) {
	live := context.Background()
	gone, cancel := context.WithCancel(live)
	cancel()
	other := errors.New("disk I/O error")
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		err     error
		wantCtx bool
	}{
		{"Nil", gone, nil, false},
		{"LiveTxDone", live, sql.ErrTxDone, false},
		{"DoneTxDone", gone, sql.ErrTxDone, true},
		{"DoneCtxErr", gone, context.Canceled, true},
		{"DoneOther", gone, other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := store.CommitError(tc.ctx, tc.err)
			if tc.wantCtx != errors.Is(got, context.Canceled) {
				t.Fatalf("CommitError(%v) = %v; matches context.Canceled: %v, want %v", tc.err, got, !tc.wantCtx, tc.wantCtx)
			}
			if !tc.wantCtx && got != tc.err {
				t.Fatalf("CommitError(%v) = %v, want the error as it is", tc.err, got)
			}
		})
	}
}
