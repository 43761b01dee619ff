package main

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestSalvageDeletedAtLeafEnd: a message deleted with secure_delete off
// (a file another tool wrote, or one written before mnemo set it) from
// the end of a leaf page of messages leaves its cell whole before the
// content area and its pointer past the cell count. With the count
// garbled one higher and the page's fragment byte garbled too, the page
// adds up by no count, SQLite returns the deleted message through that
// pointer, and salvage kept it (salv70): it must stay deleted.
func TestSalvageDeletedAtLeafEnd(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(dir, engine.DatabaseFile)
	page := messageLeaf(t, path)
	last := lastRowidOf(t, path, page)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA secure_delete = OFF`, `DELETE FROM messages WHERE rowid = ?`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if _, err := db.Exec(q, last); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hdr := b[(page-1)*4096:]
	n := binary.BigEndian.Uint16(hdr[3:])
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{byte((n + 1) >> 8), byte(n + 1), hdr[5], hdr[6], hdr[7] ^ 1}, (page-1)*4096+3); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
	var rep engine.SalvageReport
	if code > 1 || json.Unmarshal([]byte(out), &rep) != nil || rep.Sound {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	db, err = sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var kept, back int
	if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE rowid = ?) FROM messages`, last).Scan(&kept, &back); err != nil {
		t.Fatal(err)
	}
	if back != 0 || kept < 199-int(n) {
		t.Fatalf("deleted message %d kept: %d (%d messages kept; report %s)", last, back, kept, out)
	}
}

// lastRowidOf returns the greatest rowid of the messages on leaf page
// page of the sound database at path.
func lastRowidOf(t *testing.T, path string, page int64) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT pageno, ncell FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY path`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	skip := 0
	for rows.Next() {
		var p int64
		var n int
		if err := rows.Scan(&p, &n); err != nil {
			t.Fatal(err)
		}
		skip += n
		if p == page {
			var id int64
			if err := db.QueryRow(`SELECT rowid FROM messages ORDER BY rowid LIMIT 1 OFFSET ?`, skip-1).Scan(&id); err != nil {
				t.Fatal(err)
			}
			return id
		}
	}
	t.Fatalf("page %d is no leaf of messages", page)
	return 0
}
