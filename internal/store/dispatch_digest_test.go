package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestNoResultDigest: migration 14 drops dispatches.result_digest, which
// nothing wrote or read; the table's other columns stay.
func TestNoResultDigest(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('dispatches') WHERE name = 'result_digest'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("dispatches.result_digest: %d columns (%v), want none", n, err)
	}
	if _, err := db.ExecContext(ctx, `SELECT run_id, call_id, thread_id, resource_id, message_id, name, result_id, failed, begun_at, settled_at FROM dispatches`); err != nil {
		t.Fatalf("dispatches' columns: %v", err)
	}
}
