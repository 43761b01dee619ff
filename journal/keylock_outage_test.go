package journal_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestApplyServerHangsAfterTool: on Postgres, a tool application whose
// database stops answering while the tool runs (after its key lock was
// taken) returns once its context ends, and its key lock's release gives
// up within its bound (the connection is closed instead, which ends the
// lock): before, the release waited for ever, and Apply with it.
func TestApplyServerHangsAfterTool(t *testing.T) {
	px := pgtest.NewProxy(t, pgtest.DSN(t))
	db, err := pgstore.OpenDB(context.Background(), px.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	j := journal.New(db, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := j.Apply(ctx, journal.ToolKey{RunID: "r1", ThreadID: "t1", ResourceID: "u1", CallID: "c1"}, func(ctx context.Context) ([]byte, error) {
			px.Hang() // the database stops answering while the tool runs
			return []byte("done"), nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Apply recorded on a database that does not answer")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Apply did not return within 20 s of a database that stopped answering")
	}
}
