package msgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestReservedIDs: ReservedIDs finds the threads under an id beginning
// with the prefix and the resources of threads under one, in byte order
// and once each, among 3,000 other threads, and each of its statements
// reads a byte-order range of an index: on SQLite (BINARY) the primary
// key and a resource index; on Postgres (after ANALYZE)
// threads_by_id_bytes and threads_by_order, never a sequential scan.
// Before schema version 8, nothing on Postgres served a
// byte-order range over threads.id (the primary key is in the column's
// collation), and mnemo check walked every thread for these ids.
func TestReservedIDs(t *testing.T) { forEachBackend(t, testReservedIDs) }

func testReservedIDs(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, _ := b.openStore(t)
	fx := fixtureTx(t, db)
	insert := func(id, resource string) {
		t.Helper()
		if _, err := fx.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at) VALUES (?, ?, 0, 0)`, id, resource); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3000 {
		insert(fmt.Sprintf("t%04d", i), fmt.Sprintf("r%02d", i%30))
	}
	// "erased" and "erased." bound the range without being in it; the
	// thread ids of resource "erased-r" are not reserved.
	for _, th := range [][2]string{{"erased-y", "r01"}, {"erased-x", "r02"}, {"erased", "erased"}, {"erased.", "erased."},
		{"a1", "erased-r"}, {"a2", "erased-r"}, {"a3", "erased-q"}} {
		insert(th[0], th[1])
	}
	fx.commit(t)
	threads, resources, err := s.ReservedIDs(ctx, "erased-")
	if err != nil || strings.Join(threads, ",") != "erased-x,erased-y" || strings.Join(resources, ",") != "erased-q,erased-r" {
		t.Fatalf("ReservedIDs = %q, %q, %v; want threads erased-x, erased-y and resources erased-q, erased-r", threads, resources, err)
	}
	if _, _, err := s.ReservedIDs(ctx, "a\xff"); !errors.Is(err, msgstore.ErrBadPrefix) {
		t.Fatalf("ReservedIDs of a prefix ending in 0xff: %v, want ErrBadPrefix", err)
	}
	if b.Dialect == store.Postgres {
		if _, err := db.ExecContext(ctx, `ANALYZE threads`); err != nil {
			t.Fatal(err)
		}
	}
	indexes := []string{"threads_by_id_bytes", "threads_by_order"}
	for i, q := range msgstore.ReservedQueries(b.text(``, ` COLLATE "C"`)) {
		text := b.Plan(t, db, q, "erased-", "erased.")
		// A sort of the matching rows is allowed (Postgres sorts the few
		// rows a bitmap scan of threads_by_order finds): not of the table.
		ok := !strings.Contains(text, "Seq Scan") && !strings.Contains(text, "SCAN threads")
		if b.Dialect == store.Postgres {
			ok = ok && strings.Contains(text, indexes[i])
		} else {
			ok = ok && strings.Contains(text, "SEARCH threads USING")
		}
		if !ok {
			t.Errorf("ReservedIDs' statement does not read a byte-order range of an index: %s", text)
		}
	}
}
