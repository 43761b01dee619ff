package enginetest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
)

// HoldWrites holds the write lock of e's SQLite database (e.Dir()'s
// DatabaseFile) from a second handle of this process, with a write
// transaction left open, until release is called (or the test ends).
// The handle shares the file's write gate with e's (internal/store), so
// e's writes wait at the gate meanwhile and give up after
// store.BusyTimeoutMillis (10 s) with engine.ErrWriteBusy; reads answer.
// release may be called more than once.
func HoldWrites(tb testing.TB, e *engine.Engine) (release func()) {
	tb.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(e.Dir(), engine.DatabaseFile))
	if err != nil {
		tb.Fatalf("open a second handle of the database: %v", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		store.CloseDB(db)
		tb.Fatalf("begin a write transaction: %v", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if err := tx.Rollback(); err != nil {
				tb.Errorf("roll back the held write transaction: %v", err)
			}
			if err := store.CloseDB(db); err != nil {
				tb.Errorf("close the second handle: %v", err)
			}
		})
	}
	tb.Cleanup(release)
	return release
}
