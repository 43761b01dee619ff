package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestClearFreeSpaceOverflow: an overflow page of a live row, whose
// chain starts in a table leaf's cell and in an index's (the same long
// value, indexed), holds the value's end in its payload and a text
// planted past it, in the last page's unused tail (where a copy of an
// erased text could lie): given the chains' owners (OverflowOwners, from
// the file), ClearFreeSpace zeroes the tail and leaves the payload (both
// pages Cleared and Live), every row reads back the same and
// integrity_check says ok. Without owners, or with owners that name a
// chain the page is not on, the page is Unresolved, left as it is. Before
// erase70 every overflow page was Unresolved, and an erasure whose text a
// live long row held vacuumed the whole file.
func TestClearFreeSpaceOverflow(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	const end, planted = "the live value's end, in its last overflow page", "planted in an overflow page's unused tail"
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT)`)
	exec(`CREATE INDEX kv_v ON kv (v)`)
	for i := range 6 {
		exec(`INSERT INTO kv VALUES (?, ?)`, i, fmt.Sprintf("row %d: %s", i, strings.Repeat("a long value that overflows. ", 330+40*i))+end)
	}
	exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	before := rowsOf(t, db)
	pageSize, err := store.PageSize(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	holdsEnd := pagesWith(t, db, []byte(end))
	var pages []int64 // the overflow pages holding end with 100 unused bytes after it, planted there
	for _, pg := range holdsEnd {
		p := pageOf(t, db, pg)
		at := bytes.Index(p, []byte(end)) + len(end)
		if store.BtreePage(pg, p) || len(p)-at < len(planted)+100 || bytes.ContainsFunc(p[at:], func(r rune) bool { return r != 0 }) {
			continue
		}
		copy(p[at+50:], planted)
		exec(`UPDATE sqlite_dbpage SET data = ? WHERE pgno = ?`, p, pg)
		pages = append(pages, pg)
	}
	if len(pages) < 2 {
		t.Fatalf("%d overflow pages with room after the value's end (of %v), want the table's and the index's", len(pages), holdsEnd)
	}
	exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	holds := func(b []byte) bool { return bytes.Contains(b, []byte(end)) || bytes.Contains(b, []byte(planted)) }
	owners, err := store.OverflowOwners(ctx, path, pageSize, pages)
	if err != nil || len(owners) != len(pages) {
		t.Fatalf("OverflowOwners = %v, %v; want an owner for each of %v", owners, err, pages)
	}
	wrong := map[int64]store.OverflowOwner{}
	for pg, o := range owners {
		wrong[pg] = store.OverflowOwner{Page: o.Page, Head: o.Head + 1}
	}
	for _, tc := range []struct {
		name   string
		owners map[int64]store.OverflowOwner
	}{{"NoOwners", nil}, {"WrongOwners", wrong}} {
		got, err := store.ClearFreeSpace(ctx, db, pages, holds, tc.owners)
		if err != nil || fmt.Sprint(got.Unresolved) != fmt.Sprint(pages) || len(got.Cleared)+len(got.Live) != 0 {
			t.Fatalf("%s: ClearFreeSpace = %+v, %v; want %v Unresolved", tc.name, got, err, pages)
		}
	}
	got, err := store.ClearFreeSpace(ctx, db, pages, holds, owners)
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.FreeSpace{Cleared: pages, Live: pages}); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ClearFreeSpace = %+v, want %+v", got, want)
	}
	if left := pagesWith(t, db, []byte(planted)); len(left) > 0 {
		t.Fatalf("pages %v still hold the planted text", left)
	}
	if after := rowsOf(t, db); after != before {
		t.Fatal("rows changed")
	}
	var ok string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q, %v", ok, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM kv INDEXED BY kv_v WHERE v > ''`).Scan(&n); err != nil || n != 6 {
		t.Fatalf("through the index: %d rows, %v", n, err)
	}
}

// pagesWith returns the pages that hold b, as SQLite reads them.
func pagesWith(t *testing.T, db *sql.DB, b []byte) []int64 {
	t.Helper()
	var count int64
	if err := db.QueryRow(`PRAGMA page_count`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	var out []int64
	for pg := int64(1); pg <= count; pg++ {
		if bytes.Contains(pageOf(t, db, pg), b) {
			out = append(out, pg)
		}
	}
	return out
}
