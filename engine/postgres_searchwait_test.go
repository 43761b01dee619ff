package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestPostgresSearchWaitHonoursContext: the first vector search of an
// engine on Postgres reads its embedder's registration under a mutex;
// when that read waited (here the embedders table locked by another
// session: a migration, a VACUUM FULL; or a server that stopped
// answering) for a caller whose context never ends, every other search
// waited on the mutex past its own deadline, for as long. Now the wait
// ends with the waiter's context.
func TestPostgresSearchWaitHonoursContext(t *testing.T) {
	dsn := pgtest.DSN(t)
	e, err := engine.Open(context.Background(), engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if err := appendT1(ctx, e, "m1", "I moved to Porto"); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	locker, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE embedders IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	unlocked := false
	unlock := func() {
		if !unlocked {
			unlocked = true
			_ = tx.Rollback(ctx)
		}
	}
	defer unlock()
	search := func(ctx context.Context) error {
		_, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "Porto", Options: recall.Options{Mode: recall.ModeVector}})
		return err
	}
	first := make(chan error, 1)
	go func() { first <- search(ctx) }() // no deadline: waits for the table
	waitForLockWaiters(t, dsn)
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := returnsWithin(t, 10*time.Second, "a search behind the first one", func() error { return search(wctx) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a search behind the first, waiting, one: %v, want context.DeadlineExceeded", err)
	}
	unlock()
	if err := <-first; err != nil {
		t.Fatalf("the first search, the table unlocked: %v", err)
	}
}

// waitForLockWaiters waits until a session of dsn's database waits for a
// relation lock.
func waitForLockWaiters(t *testing.T, dsn string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_locks WHERE locktype = 'relation' AND NOT granted`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no session waits for the locked table after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
