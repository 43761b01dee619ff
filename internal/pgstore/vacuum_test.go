package pgstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
)

// rawPagesHolding counts the pages of table whose raw bytes (pageinspect's
// get_raw_page) contain text.
func rawPagesHolding(t *testing.T, db *sql.DB, table, text string) int {
	t.Helper()
	var n int
	err := db.QueryRowContext(context.Background(), `
SELECT count(*) FROM generate_series(0, (pg_relation_size($1::text::regclass) / current_setting('block_size')::int)::int - 1) AS b
WHERE position(convert_to($2, 'UTF8') IN public.get_raw_page($1::text, b)) > 0`, table, text).Scan(&n)
	if err != nil {
		t.Fatalf("raw pages of %s: %v", table, err)
	}
	return n
}

// TestVacuumErasedText: docs/postgres.md's account of erasure on Postgres. Rows
// deleted (as an erasure deletes them) leave their text in the table's
// pages; Vacuum (plain) frees the space without zeroing it; Vacuum with
// full rewrites the table, whose pages then hold no erased text, and it
// shrinks (once no transaction that began before the DELETE is open).
// Every table of ErasedTables is vacuumed through the *sql.DB
// OpenDB returns (VACUUM outside a transaction).
func TestVacuumErasedText(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	pgtest.Exec(t, pgtest.ServerDSN(t), `CREATE EXTENSION IF NOT EXISTS pageinspect WITH SCHEMA public`)
	db, err := pgstore.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES ('t1', 'r1', 1, 1)`)
	// The erased messages fill pages of their own; the kept ones follow, so
	// the erased pages are neither compacted by live rows nor truncated.
	const erased, kept = 400, 400
	for i := range erased + kept {
		content := fmt.Sprintf("kept message %d, nothing secret here at all, padding padding padding", i)
		if i < erased {
			content = fmt.Sprintf("ERASED-MARK-%04d my card number is 4111 1111 1111 1111, padding padding", i)
		}
		exec(`INSERT INTO messages (id, thread_id, resource_id, seq, role, content, created_at, tokens, digest) VALUES ($1, 't1', 'r1', $2, 'user', $3, 1, 10, 'd')`,
			fmt.Sprintf("m%04d", i), i+1, content)
	}
	exec(`DELETE FROM messages WHERE content LIKE 'ERASED-MARK-%'`)
	if n := rawPagesHolding(t, db, "messages", "ERASED-MARK-"); n == 0 {
		t.Fatal("no page holds the deleted text right after DELETE: the test no longer sees what it measures")
	}

	got, err := pgstore.Vacuum(ctx, db, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range got {
		names = append(names, v.Table)
		if v.BytesBefore <= 0 || v.BytesAfter <= 0 {
			t.Errorf("%s: sizes %d -> %d, want positive", v.Table, v.BytesBefore, v.BytesAfter)
		}
	}
	if strings.Join(names, ",") != strings.Join(pgstore.ErasedTables, ",") {
		t.Errorf("vacuumed %v, want %v", names, pgstore.ErasedTables)
	}
	if n := rawPagesHolding(t, db, "messages", "ERASED-MARK-"); n == 0 {
		t.Error("a plain VACUUM zeroed the deleted text: docs/postgres.md says it does not; check it again")
	}

	// A row deleted while another session's snapshot may still see it is
	// copied by VACUUM FULL (and kept by VACUUM): on a shared server,
	// vacuum again until those transactions ended.
	var full []pgstore.VacuumedTable
	deadline := time.Now().Add(time.Minute)
	for {
		if full, err = pgstore.Vacuum(ctx, db, true); err != nil {
			t.Fatal(err)
		}
		n := rawPagesHolding(t, db, "messages", "ERASED-MARK-")
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pages of messages still hold the erased text after a minute of VACUUM FULL (a transaction open since the DELETE?)", n)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := rawPagesHolding(t, db, "messages", "kept message 799,"); n != 1 {
		t.Errorf("the kept message is in %d pages after VACUUM FULL, want 1", n)
	}
	m := full[1]
	if m.Table != "messages" || m.BytesAfter >= m.BytesBefore {
		t.Errorf("VACUUM FULL of %s: %d -> %d bytes, want it to shrink", m.Table, m.BytesBefore, m.BytesAfter)
	}
}

// TestVacuumCancelled: a cancelled context stops Vacuum with its error.
func TestVacuumCancelled(t *testing.T) {
	db, err := pgstore.OpenDB(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pgstore.Vacuum(ctx, db, false); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("Vacuum on a cancelled context: %v, want context canceled", err)
	}
}

// TestVacuumCancelledAfterATable: a cancel that comes once the first
// table's VACUUM returned, as its size after is read, stops Vacuum with
// ctx's error and the result lists that table, with its size after.
// Before, the size query failed and the vacuumed table was left out.
func TestVacuumCancelledAfterATable(t *testing.T) {
	db, err := pgstore.OpenDB(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pgstore.SetAfterVacuum(t, func(string) { cancel() })
	got, err := pgstore.Vacuum(ctx, db, false)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Vacuum cancelled after its first table: %v, want context.Canceled", err)
	}
	if len(got) != 1 || got[0].Table != pgstore.ErasedTables[0] || got[0].BytesAfter <= 0 {
		t.Fatalf("Vacuum cancelled after its first table returned %+v, want %s with its size after", got, pgstore.ErasedTables[0])
	}
}
