package enginetest

import (
	"database/sql"
	"encoding/binary"
	"net/url"
	"testing"
)

// PlantLeftover writes text into the unallocated space of a b-tree leaf
// page of the SQLite file at path (mnemo.db), through a connection of its
// own and sqlite_dbpage, as a page rebalance leaves the old bytes of a
// cell there: bytes SQLite never reads, so no row holds them, and
// PRAGMA integrity_check still says ok. The engine on path may be open
// (the write waits for its writers, as another process's would) or
// closed. It returns the page's number; it fails the test when no leaf
// page has room for text, or on any error.
func PlantLeftover(tb testing.TB, path, text string) int64 {
	tb.Helper()
	tx, done := pageTx(tb, path)
	defer done()
	var pages int64
	if err := tx.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		tb.Fatal(err)
	}
	for pg := int64(2); pg <= pages; pg++ {
		var p []byte
		if err := tx.QueryRow(`SELECT data FROM sqlite_dbpage WHERE pgno = ?`, pg).Scan(&p); err != nil {
			tb.Fatal(err)
		}
		at, ok := leafGap(p, len(text))
		if !ok {
			continue
		}
		copy(p[at:], text)
		if _, err := tx.Exec(`UPDATE sqlite_dbpage SET data = ? WHERE pgno = ?`, p, pg); err != nil {
			tb.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
		return pg
	}
	tb.Fatalf("PlantLeftover: no leaf page of %s has %d bytes of unallocated space", path, len(text))
	return 0
}

// leafGap returns where in the b-tree leaf page p (not page 1) n bytes fit
// in the unallocated space, away from its edges.
func leafGap(p []byte, n int) (int, bool) {
	if p[0] != 10 && p[0] != 13 {
		return 0, false
	}
	cells := int(binary.BigEndian.Uint16(p[3:]))
	content := int(binary.BigEndian.Uint16(p[5:]))
	if content == 0 {
		content = 65536
	}
	start := 8 + 2*cells + 8
	if content-8-start < n {
		return 0, false
	}
	return start, true
}

// PlantInTrunk writes text into the unused tail of a free-list trunk page
// of the SQLite file at path (mnemo.db), through a connection of its own
// and sqlite_dbpage, first freeing pages (a table of 40 rows of 3,000
// bytes, created and dropped) so the free list has a trunk: bytes no page
// says are live or free, which the residue check of an erasure cannot
// zero in place, so it vacuums (engine.VacuumResidue). With text "" it
// only frees the pages. The engine on path may be open or closed, as for
// PlantLeftover. It returns the trunk's page number; it fails the test on
// any error.
func PlantInTrunk(tb testing.TB, path, text string) int64 {
	tb.Helper()
	tx, done := pageTx(tb, path)
	defer done()
	for _, q := range []string{
		`CREATE TABLE plant_in_trunk_filler (b BLOB)`,
		`INSERT INTO plant_in_trunk_filler SELECT zeroblob(3000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) SELECT i FROM n)`,
		`DROP TABLE plant_in_trunk_filler`,
	} {
		if _, err := tx.Exec(q); err != nil {
			tb.Fatal(err)
		}
	}
	var page1, trunk []byte
	if err := tx.QueryRow(`SELECT data FROM sqlite_dbpage WHERE pgno = 1`).Scan(&page1); err != nil {
		tb.Fatal(err)
	}
	pg := int64(binary.BigEndian.Uint32(page1[32:]))
	if pg == 0 {
		tb.Fatalf("PlantInTrunk: %s has no free-list trunk page", path)
	}
	if text != "" {
		if err := tx.QueryRow(`SELECT data FROM sqlite_dbpage WHERE pgno = ?`, pg).Scan(&trunk); err != nil {
			tb.Fatal(err)
		}
		copy(trunk[len(trunk)-len(text)-8:], text)
		if _, err := tx.Exec(`UPDATE sqlite_dbpage SET data = ? WHERE pgno = ?`, trunk, pg); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return pg
}

// pageTx opens a connection of its own to the SQLite file at path and
// begins a write transaction on it (waiting up to 10 s for the engine's
// writers, as another process would). done rolls the transaction back
// unless it was committed and closes the connection. It fails the test on
// any error.
func pageTx(tb testing.TB, path string) (tx *sql.Tx, done func()) {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		tb.Fatal(err)
	}
	if tx, err = db.Begin(); err != nil {
		db.Close()
		tb.Fatal(err)
	}
	return tx, func() {
		tx.Rollback()
		db.Close()
	}
}
