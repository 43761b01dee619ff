package engine

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestAppendDeadlineAtCommit: an Append whose context is done after its
// last statement and before the commit (database/sql has rolled it back)
// fails with an error matching ctx.Err(), and nothing of it is stored.
// It failed with "engine: commit: sql: transaction has already been
// committed or rolled back", matching neither context error (walk37 #6:
// 1 of 300 appends under deadlines).
func TestAppendDeadlineAtCommit(t *testing.T) {
	for _, be := range []struct {
		name string
		cfg  func(t *testing.T) Config
	}{
		{"SQLite", func(t *testing.T) Config { return Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}} }},
		{"Postgres", func(t *testing.T) Config { return Config{Postgres: pgtest.DSN(t), Embedder: recall.HashEmbedder{}} }},
	} {
		t.Run(be.name, func(t *testing.T) {
			e, err := Open(context.Background(), be.cfg(t))
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			after := func(_ context.Context, tx *store.Tx, _ *AppendResult) error {
				cancel()
				waitRolledBack(tx)
				return nil
			}
			req := AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []Message{{Role: RoleUser, Content: "hello"}}}
			_, err = e.appendWith(ctx, req, appendHooks{after: after})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Append with ctx done before commit: %v, want an error matching context.Canceled", err)
			}
			if !strings.Contains(err.Error(), "nothing committed") {
				t.Errorf("Append with ctx done before commit: %v, want it to say nothing was committed", err)
			}
			if msgs, err := e.Messages(context.Background(), "t", 0, 10); !errors.Is(err, ErrThreadNotFound) {
				t.Fatalf("thread after the failed Append: %d messages (%v), want ErrThreadNotFound (nothing stored)", len(msgs), err)
			}
		})
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
