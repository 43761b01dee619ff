package main

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// TestSalvageErasedMarkersLost: messages 101-110 of a thread erased
// (delete --message), then the journal's leaf, which held their
// tombstones, garbled. Salvage listed "10 messages lost in 1 thread: seqs
// 101-110" (readme71 F4): the messages table read whole, no message was
// lost; their seqs are marked erased again, in markersLost, not lost, and
// check is ok.
func TestSalvageErasedMarkersLost(t *testing.T) {
	dir := storedDir(t, engine.Config{}, false, inThreadT(harbourMessages()...))
	path := filepath.Join(dir, engine.DatabaseFile)
	args := []string{"--dir", dir, "delete", "--yes"}
	for _, id := range queryStrings(t, path, `SELECT id FROM messages WHERE seq BETWEEN 101 AND 110`) {
		args = append(args, "--message", id)
	}
	if code, out, stderr := run(t, nil, args...); code != 0 || len(args) != 24 {
		t.Fatalf("delete: exit %d\n%s%s", code, out, stderr)
	}
	for _, p := range queryStrings(t, path, `SELECT pageno FROM dbstat WHERE name = 'journal' AND pagetype = 'leaf'`) {
		var page int64
		if err := json.Unmarshal([]byte(p), &page); err != nil {
			t.Fatal(err)
		}
		garblePage(t, path, page)
	}
	code, out, stderr := run(t, nil, "--dir", dir, "salvage", "--json")
	var rep engine.SalvageReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Sound {
		t.Fatalf("salvage: exit %d\n%s%s", code, out, stderr)
	}
	m := rep.MarkersLost
	if len(rep.Lost) != 0 || len(m) != 1 || m[0].ThreadID != "t" || m[0].FromSeq != 101 || m[0].ToSeq != 110 {
		t.Fatalf("erased seqs reported lost %+v; markers lost %+v (want seqs 101-110)", rep.Lost, m)
	}
	if code, out, stderr = run(t, nil, "--dir", dir, "check"); code != 0 || strings.Contains(out, "lost") {
		t.Fatalf("check after salvage: exit %d\n%s%s", code, out, stderr)
	}
}

// queryStrings returns the first column of q's rows on the database at
// path, as text.
func queryStrings(t *testing.T, path, q string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
