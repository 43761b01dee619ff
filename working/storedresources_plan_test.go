package working_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/storetest"
	"github.com/mnemo-go/mnemo/working"
)

// TestStoredResourcesPlan: a page of StoredResources reads a range of an
// index in byte order, not the whole table, among 3,000 thread states
// and 3,000 resource states: on SQLite the primary key (BINARY); on
// Postgres (after ANALYZE) working_memory_by_scope_bytes, with neither a
// sequential scan nor a sort. Before schema version 8, Postgres's only
// index on scope was the primary key, in the column's collation, which no
// COLLATE "C" condition can use: each page read and sorted every state
// (a full export of N states O(N²/page)). The page itself is checked
// too: the ids after "r1500" in byte order.
func TestStoredResourcesPlan(t *testing.T) { forEachBackend(t, testStoredResourcesPlan) }

func testStoredResourcesPlan(t *testing.T, b backend) {
	ctx := context.Background()
	db, _ := b.openDB(t)
	storetest.InTx(t, db, func(tx *store.Tx) error {
		for i := range 3000 {
			for _, key := range []string{working.ThreadKey(fmt.Sprintf("t%04d", i)), working.ResourceKey(fmt.Sprintf("r%04d", i))} {
				if _, err := tx.ExecContext(ctx, tx.Dialect.Rebind(`INSERT INTO working_memory (scope, mode, content, version, updated_at) VALUES (?, 'markdown', '# Notes', 1, 0)`), key); err != nil {
					return err
				}
			}
		}
		return nil
	})
	ids, err := working.StoredResources(ctx, db, "r1500", 3)
	if err != nil || strings.Join(ids, ",") != "r1501,r1502,r1503" {
		t.Fatalf("StoredResources after r1500 = %q, %v; want r1501..r1503", ids, err)
	}
	if b.Dialect == store.Postgres {
		if _, err := db.ExecContext(ctx, `ANALYZE working_memory`); err != nil {
			t.Fatal(err)
		}
	}
	text := b.Plan(t, db, working.StoredResourcesSQL(b.Dialect), working.ResourceKey("r1500"), 100)
	ok := !strings.Contains(text, "Seq Scan") && !strings.Contains(text, "Sort") && !strings.Contains(text, "TEMP B-TREE") && !strings.Contains(text, "SCAN working_memory")
	if b.Dialect == store.Postgres {
		ok = ok && strings.Contains(text, "working_memory_by_scope_bytes")
	} else {
		ok = ok && strings.Contains(text, "SEARCH working_memory USING") && strings.Contains(text, "(scope>? AND scope<?)")
	}
	if !ok {
		t.Errorf("a page of StoredResources does not read a byte-order range of an index: %s", text)
	}
}
