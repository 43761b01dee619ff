package journal_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestPutMemCtxOneTransaction: PutMemCtx of a new run (its claim and its
// record) is one write transaction: the database's write check runs once
// (on Postgres the schema version check, each run a BEGIN, the check and
// a COMMIT), where the claim and the record were each a transaction of
// their own (2 checks). The claim and record are both stored, a second
// record of the run is ErrRunExists, and a run of another thread
// ErrRunOwned, each after one check.
func TestPutMemCtxOneTransaction(t *testing.T) { forEachBackend(t, testPutMemCtxOneTransaction) }

func testPutMemCtxOneTransaction(t *testing.T, b backend) {
	ctx := context.Background()
	j, db := b.openErase(t)
	var checks atomic.Int64
	store.SetWriteCheck(db, func(ctx context.Context, tx store.Conn) error {
		checks.Add(1)
		if b.Dialect == store.Postgres {
			return pgstore.CheckVersion(ctx, tx)
		}
		return nil
	})
	for _, c := range []struct {
		name   string
		rec    journal.MemCtx
		wantIs error
	}{
		{"New", journal.MemCtx{RunID: "run-1", ThreadID: "t", ResourceID: "r"}, nil},
		{"ErrRunExists", journal.MemCtx{RunID: "run-1", ThreadID: "t", ResourceID: "r"}, journal.ErrRunExists},
		{"ErrRunOwned", journal.MemCtx{RunID: "run-1", ThreadID: "t2", ResourceID: "r"}, journal.ErrRunOwned},
	} {
		checks.Store(0)
		if err := j.PutMemCtx(ctx, &c.rec, false); !errors.Is(err, c.wantIs) || (c.wantIs == nil) != (err == nil) {
			t.Fatalf("%s: PutMemCtx = %v, want %v", c.name, err, c.wantIs)
		}
		if got := checks.Load(); got != 1 {
			t.Errorf("%s: PutMemCtx ran the write check %d times, want 1 (one transaction)", c.name, got)
		}
	}
	if err := j.CheckRun(ctx, "run-1", "t", "r"); err != nil {
		t.Fatalf("CheckRun of the claimed run: %v", err)
	}
	if _, err := j.MemCtx(ctx, "run-1"); err != nil {
		t.Fatalf("the record: %v", err)
	}
}
