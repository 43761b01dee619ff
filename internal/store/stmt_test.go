package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/storetest"
)

// TestInTxNeedsNoSecondConnection: a statement not yet cached is prepared
// for a transaction without a second connection of the pool. Before, InTx
// prepared it on the pool first, waiting for a free connection while the
// transaction held one: with every other connection held by transactions
// waiting for a lock the first one held (on Postgres, eight goroutines
// appending to one thread, TestAppendConcurrentSeqs), nothing ever moved.
// Here the pool has one connection, which the transaction holds; before,
// InTx waited until ctx expired.
func TestInTxNeedsNoSecondConnection(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.OpenDB(t, b.Place(t))
		db.SetMaxOpenConns(1)
		stmts := store.NewStmts(db)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for round := range 2 { // cold (prepared on tx), then cached or still pending
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := stmts.InTx(ctx, tx, `SELECT ? + 1`)
			if err != nil {
				t.Fatalf("round %d: InTx with the pool's only connection in the transaction: %v", round, err)
			}
			var n int
			if err := st.QueryRowContext(ctx, 41).Scan(&n); err != nil || n != 42 {
				t.Fatalf("round %d: %d, %v; want 42", round, n, err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		// Once the connection is free, the statement is cached on the pool.
		if _, err := stmts.Prepare(ctx, `SELECT ? + 1`); err != nil {
			t.Fatal(err)
		}
	})
}
