package observe

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/storetest"
)

// TestCommitCtxDone: the commit of observe's own write transactions
// (storeObservation, storeReflection, forgetAnswer) whose context is done
// after the last statement fails with an error matching ctx.Err() and
// commits nothing. btx.Commit alone gave "sql: transaction has already been
// committed or rolled back", which matches neither context error.
func TestCommitCtxDone(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.OpenDB(t, b.Place(t))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		btx, err := store.Begin(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer btx.Rollback()
		if _, err := store.Bound(btx).ExecContext(ctx, `UPDATE observations SET retired_at = 1 WHERE id = 'none'`); err != nil {
			t.Fatal(err)
		}
		cancel()
		for {
			_, err := btx.ExecContext(context.Background(), `SELECT 1`)
			if errors.Is(err, sql.ErrTxDone) {
				break
			}
			runtime.Gosched()
		}
		if err := commit(ctx, btx); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing committed") {
			t.Fatalf("commit with ctx done: %v, want an error matching context.Canceled saying nothing was committed", err)
		}
	})
}
