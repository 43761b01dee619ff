package working_test

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/working"
)

// TestUpdateCtxDoneAtCommit: an update whose context is done after its
// last statement and before its commit (database/sql has rolled it back)
// fails with an error matching ctx.Err() and writes nothing, as the
// engine's writes do since store.CommitError. It failed with "working:
// update thread:t: sql: transaction has already been committed or rolled
// back", which matches neither context error.
func TestUpdateCtxDoneAtCommit(t *testing.T) { forEachBackend(t, testUpdateCtxDoneAtCommit) }

func testUpdateCtxDoneAtCommit(t *testing.T, b backend) {
	db, _ := b.openDB(t)
	m := mustNew(t, db, working.Config{Schema: []byte(`{"type":"object"}`)})
	key := working.ThreadKey("t")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	working.SetBeforeCommit(m, func(tx *store.Tx) {
		cancel()
		waitRolledBack(tx)
	})
	_, err := m.Set(ctx, key, `{"city":"Porto"}`, working.Origin{RunID: "r", ToolCallID: "call_0"})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing committed") {
		t.Fatalf("Set with ctx done before commit: %v, want an error matching context.Canceled saying nothing was committed", err)
	}
	working.SetBeforeCommit(m, nil)
	st, err := m.Get(context.Background(), key)
	if err != nil || st.Version != 0 {
		t.Fatalf("state after the failed update: %+v, %v; want nothing written", st, err)
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
