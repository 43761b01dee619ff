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
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
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
