package msgstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// TestPendingIndexPlan: the statements of a search's backlog
// (PendingIndex, Pending) read outbox_by_resource, not the whole
// outbox, while other resources owe 3,000 rows: on SQLite the plan
// searches the covering index by resource and op (no row of the table
// read; Pending's delete rows look their message up by primary key); on
// Postgres (after ANALYZE) it scans the index. Their answers
// count only the resource's rows (Pending's Erased, its delete rows;
// its Unindexed, its index rows: no message is stored here, so none owes
// indexing through a delete row; an erased message's index row left the
// resource with its erasure, msgstore.NoResource).
func TestPendingIndexPlan(t *testing.T) { forEachBackend(t, testPendingIndexPlan) }

func testPendingIndexPlan(t *testing.T, b backend) {
	ctx := context.Background()
	s, db, conn := b.openStore(t)
	insert := func(op, id, resource string) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES (?, ?, ?, 0)`, op, id, resource); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3000 {
		insert([]string{msgstore.OpIndex, msgstore.OpEmbed, msgstore.OpDelete}[i%3], fmt.Sprintf("o%d", i), fmt.Sprintf("other%d", i%30))
	}
	for i, op := range []string{msgstore.OpIndex, msgstore.OpDelete, msgstore.OpIndex, msgstore.OpEmbed, msgstore.OpIndex, msgstore.OpDelete} {
		insert(op, fmt.Sprintf("m%d", i), "r")
	}
	// m0 erased after it was queued: its index row leaves r (EraseMessages).
	if _, err := conn.ExecContext(ctx, `UPDATE outbox SET resource_id = ? WHERE message_id = 'm0'`, msgstore.NoResource); err != nil {
		t.Fatal(err)
	}
	insert(msgstore.OpDelete, "m0", "r")
	insert(msgstore.OpIndex, "m5", msgstore.NoResource) // m5 stored again and erased again
	insert(msgstore.OpDelete, "m1", "r")                // m1 erased twice: listed once
	if n, err := s.PendingIndex(ctx, "r"); err != nil || n != 2 {
		t.Fatalf("PendingIndex = %d, %v; want 2", n, err)
	}
	w, err := s.Pending(ctx, "r")
	if slices.Sort(w.Unindexed); err != nil || strings.Join(w.Unindexed, ",") != "m2,m4" {
		t.Fatalf("Pending: Unindexed %q, %v; want m2, m4", w.Unindexed, err)
	}
	if slices.Sort(w.Erased); strings.Join(w.Erased, ",") != "m0,m1,m5" {
		t.Fatalf("Pending: Erased %q; want m0, m1, m5", w.Erased)
	}
	if w, err := s.Pending(ctx, "none"); err != nil || w.Unindexed != nil || w.Erased != nil {
		t.Fatalf("Pending of a resource that owes nothing = %+v, %v; want none", w, err)
	}
	if b.Dialect == store.Postgres {
		if _, err := db.ExecContext(ctx, `ANALYZE outbox`); err != nil {
			t.Fatal(err)
		}
	}
	for q, args := range msgstore.PendingIndexQueries {
		if q == msgstore.PendingSQL && b.Dialect == store.Postgres {
			// Only the SQLite engine runs Pending (engine.backlog); on an
			// empty messages table Postgres plans its lookup of a
			// stored id as a sequential scan.
			continue
		}
		text := b.Plan(t, db, q, args...)
		ok := strings.Contains(text, "outbox_by_resource") && !strings.Contains(text, "TEMP B-TREE") && !strings.Contains(text, "Sort") &&
			!strings.Contains(text, "SCAN outbox") && !strings.Contains(text, "SCAN m") && !strings.Contains(text, "Seq Scan")
		if b.Dialect == store.SQLite {
			ok = ok && strings.Contains(text, "SEARCH outbox USING COVERING INDEX outbox_by_resource (resource_id=? AND op=?)")
		}
		if !ok {
			t.Errorf("the backlog's statement does not read outbox_by_resource by resource and op: %s", text)
		}
	}
}
