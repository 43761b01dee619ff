package msgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestClaimOutboxChecksVersion: on Postgres, once a newer build has
// migrated the schema (its schema_version row), a drainer's claim of
// outbox rows is refused with ErrSchemaMigrated and leases nothing, as
// every other write is. Before, the claim (one UPDATE … RETURNING read
// through QueryContext) ran outside the write check and leased the rows.
// SQLite has no write check: the claim is checked to still work there.
func TestClaimOutboxChecksVersion(t *testing.T) { forEachBackend(t, testClaimOutboxChecksVersion) }

func testClaimOutboxChecksVersion(t *testing.T, b backend) {
	ctx := context.Background()
	s, _, conn := b.openStore(t)
	for _, id := range []string{"m1", "m2"} {
		if _, _, err := appendOne(ctx, s, "t", id, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	now, until := time.UnixMilli(2000), time.UnixMilli(60_000)
	if b.Dialect == store.SQLite {
		if rows, err := s.ClaimOutbox(ctx, now, until, 10); err != nil || len(rows) == 0 {
			t.Fatalf("ClaimOutbox = %d rows, %v; want the rows", len(rows), err)
		}
		return
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO schema_version (version, applied_at) VALUES (?, 0)`, pgstore.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	rows, err := s.ClaimOutbox(ctx, now, until, 10)
	if !errors.Is(err, pgstore.ErrSchemaMigrated) || len(rows) != 0 {
		t.Fatalf("ClaimOutbox after the migration = %d rows, %v; want none and ErrSchemaMigrated", len(rows), err)
	}
	if leased, err := s.LeasedOutbox(ctx, now); err != nil || leased != 0 {
		t.Fatalf("LeasedOutbox after the refused claim = %d, %v; want 0", leased, err)
	}
}
