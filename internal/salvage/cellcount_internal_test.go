package salvage

import (
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// byFirstRow returns the leaf pages of leaves in rowid order.
func byFirstRow(leaves map[int64][]int64) []int64 {
	order := make([]int64, 0, len(leaves))
	for p := range leaves {
		order = append(order, p)
	}
	slices.SortFunc(order, func(a, b int64) int { return int(leaves[a][0] - leaves[b][0]) })
	return order
}

// TestCopyTableLeafCellCount: a leaf page whose cell count alone is
// garbled (one bit, 0xffff, 0, one or five too few, one or two too many)
// is read by its pointer array: every row is kept as it was, none is
// reported unreadable or refused (readme65 F1: one bit of a messages
// leaf's count lost its 21 messages). The rows SQLite reads through the
// pointers past the true count are dropped (a count one or two too high
// made the scan read the same range forever) and not counted garbled:
// they were no rows, none was lost (salv67 counted up to 16).
func TestCopyTableLeafCellCount(t *testing.T) {
	for _, table := range []string{"t", "u"} {
		sound := filepath.Join(t.TempDir(), "sound.db")
		writeFixture(t, sound, table)
		leaves, _ := leafRows(t, sound, table)
		order := byFirstRow(leaves)
		for _, tc := range []struct {
			name string
			set  func(int) int
		}{
			{"Bit", func(n int) int { return n ^ 0x100 }},
			{"High", func(int) int { return 0xffff }},
			{"Zero", func(int) int { return 0 }},
			{"LessOne", func(n int) int { return n - 1 }},
			{"LessFive", func(n int) int { return n - 5 }},
			{"MoreOne", func(n int) int { return n + 1 }},
			{"MoreTwo", func(n int) int { return n + 2 }},
		} {
			for _, at := range []string{"First", "Middle", "Last"} {
				t.Run(table+"/"+tc.name+"/"+at, func(t *testing.T) {
					page := map[string]int64{"First": order[0], "Middle": order[len(order)/2], "Last": order[len(order)-1]}[at]
					path := filepath.Join(t.TempDir(), "damaged.db")
					copyFile(t, sound, path)
					setCellCount(t, path, page, tc.set)
					res, got := copyOne(t, path, table)
					verifyCopy(t, table, res, got, leaves, nil)
				})
			}
		}
	}
}

// TestCopyTableLeafCellCountUnreadable: a leaf whose count is one too low
// and whose fragment count (or first freeblock) is garbled too does not
// add up by any count, and SQLite reads it without an error, returning
// all its rows but the last: that row is reported unreadable (by the keys
// of the interior page that names the leaf), not lost with no range said
// (readme65 F1: the unreadable rowids printed "-" while messages were
// lost), and the others are kept: the content start's cell, named by the
// pointer past the count, still vouches for them (readme71 F3: every row
// of the leaf was dropped). The leaf has a freeblock: a row deleted with
// secure_delete on, as mnemo does, which stays deleted.
func TestCopyTableLeafCellCountUnreadable(t *testing.T) {
	sound := filepath.Join(t.TempDir(), "sound.db")
	writeFixture(t, sound, "t")
	leaves, _ := leafRows(t, sound, "t")
	page := byFirstRow(leaves)[len(leaves)/2]
	ids := leaves[page]
	erased := ids[len(ids)/2]
	deleteRows(t, sound, "ON", erased)
	ids = slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return id == erased })
	last := ids[len(ids)-1]
	at := (page - 1) * pageSize
	for _, tc := range []struct {
		name  string
		off   int64
		value []byte
	}{
		{"Fragments", 7, []byte{0x7f}},
		{"FirstFreeblockZeroed", 1, []byte{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.db")
			copyFile(t, sound, path)
			setCellCount(t, path, page, func(n int) int { return n - 1 })
			writeAt(t, path, at+tc.off, tc.value)
			res, got := copyOne(t, path, "t")
			if _, kept := got[last]; kept || !inRanges(res.Unreadable, last) {
				t.Fatalf("row %d: kept %v, unreadable %v", last, kept, res.Unreadable)
			}
			if _, kept := got[erased]; kept {
				t.Fatalf("deleted row %d kept", erased)
			}
			for id, row := range got {
				if !same("t", row, id) {
					t.Fatalf("row %d kept as %v", id, row)
				}
			}
			for p, rows := range leaves {
				for _, id := range rows {
					if _, kept := got[id]; !kept && id != last && id != erased {
						t.Fatalf("row %d of page %d lost (the leaf's last is %d; report %+v)", id, p, last, res)
					}
				}
			}
			if res.Garbled != 0 || res.Invalid != 0 || res.Kept != int64(fixtureRows-2) {
				t.Fatalf("one row lost and one deleted, and the report says %+v", res)
			}
		})
	}
}

// deleteRows deletes the rows ids of table t of the database at path
// with secure_delete set to mode (ON or OFF).
func deleteRows(t testing.TB, path, mode string, ids ...int64) {
	t.Helper()
	db, err := sql.Open("sqlite", dsnOf(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA secure_delete = ` + mode); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if _, err := db.Exec(`DELETE FROM t WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCopyTableLeafCellCountKeepsErasure: with secure_delete off, rows
// deleted from a leaf leave their cells' bytes in a freeblock (the second
// of two adjacent cells whole, its own header not overwritten). A stale
// pointer past the true count naming that cell, and a count garbled one
// higher to reach it, must not bring the row back: the cell lies in a
// freeblock. With the page's first freeblock zeroed too, the pointer no
// longer overlaps a freeblock, but it is out of rowid order and the
// cells taken do not tile the content area: the page is not read (its
// rows are reported unreadable), and the deleted rows stay deleted.
func TestCopyTableLeafCellCountKeepsErasure(t *testing.T) {
	sound := filepath.Join(t.TempDir(), "sound.db")
	writeFixture(t, sound, "t")
	leaves, _ := leafRows(t, sound, "t")
	page := byFirstRow(leaves)[len(leaves)/2]
	m := leaves[page][len(leaves[page])/2]
	b, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	data := b[(page-1)*pageSize : page*pageSize]
	n := int(binary.BigEndian.Uint16(data[3:]))
	freed := int(binary.BigEndian.Uint16(data[8+2*(len(leaves[page])/2):])) // row m's cell
	db, err := sql.Open("sqlite", dsnOf(sound))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PRAGMA secure_delete = OFF`, `DELETE FROM t WHERE id = ` + strconv.FormatInt(m+1, 10), `DELETE FROM t WHERE id = ` + strconv.FormatInt(m, 10)} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if b, err = os.ReadFile(sound); err != nil {
		t.Fatal(err)
	}
	data = b[(page-1)*pageSize : page*pageSize]
	_, k := varint(data[freed:])
	if rowid, _ := varint(data[freed+k:]); int64(rowid) != m || binary.BigEndian.Uint16(data[1:]) == 0 {
		t.Fatalf("row %d's cell at %d is not whole in a freeblock (it reads rowid %d)", m, freed, rowid)
	}
	erased := func(id int64) bool { return id == m || id == m+1 }
	for _, tc := range []struct {
		name      string
		freeblock bool // the page's first freeblock pointer is zeroed too
	}{{"Freeblock", false}, {"FreeblockZeroed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.db")
			copyFile(t, sound, path)
			at := (page - 1) * pageSize
			writeAt(t, path, at+8+2*int64(n-2), []byte{byte(freed >> 8), byte(freed)})
			setCellCount(t, path, page, func(int) int { return n - 1 })
			if tc.freeblock {
				writeAt(t, path, at+1, []byte{0, 0})
			}
			res, got := copyOne(t, path, "t")
			for id, row := range got {
				if erased(id) || !same("t", row, id) {
					t.Fatalf("row %d kept as %v: deleted, or not the fixture's (report %+v)", id, row, res)
				}
			}
			for p, ids := range leaves {
				for _, id := range ids {
					_, kept := got[id]
					if !erased(id) && !kept && (p != page || !tc.freeblock || !inRanges(res.Unreadable, id)) {
						t.Fatalf("row %d of page %d lost (unreadable %v)", id, p, res.Unreadable)
					}
				}
			}
		})
	}
}

// writeAt writes b at offset off of the file at path.
func writeAt(t testing.TB, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// TestCopyTableLeafCellCountKeepsErasureAtEnd: with secure_delete off,
// the rows deleted last from a leaf are its highest: their cells, at the
// start of the content area, are left out of it whole, and their pointers
// stay past the count (SQLite shrinks the count, not the array). A count
// garbled one higher makes SQLite return the deleted row through that
// stale pointer, in rowid order (above every live row of the page, below
// the next page's) and so not dropped by the order check: it must not be
// kept, since the page's pointer array (cellcount.go) does not list it
// (stale.go). A count two higher reads the other deleted row's pointer
// too. Nothing is lost, so nothing is counted garbled.
func TestCopyTableLeafCellCountKeepsErasureAtEnd(t *testing.T) {
	sound := filepath.Join(t.TempDir(), "sound.db")
	writeFixture(t, sound, "t")
	leaves, _ := leafRows(t, sound, "t")
	page := byFirstRow(leaves)[len(leaves)/2]
	ids := leaves[page]
	last := ids[len(ids)-1]
	db, err := sql.Open("sqlite", dsnOf(sound))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PRAGMA secure_delete = OFF`, `DELETE FROM t WHERE id = ` + strconv.FormatInt(last, 10), `DELETE FROM t WHERE id = ` + strconv.FormatInt(last-1, 10)} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	b, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	data := b[(page-1)*pageSize : page*pageSize]
	n := int(binary.BigEndian.Uint16(data[3:]))
	stale := int(binary.BigEndian.Uint16(data[8+2*n:]))
	_, k := varint(data[stale:])
	if rowid, _ := varint(data[stale+k:]); int64(rowid) != last-1 {
		t.Fatalf("the pointer past the count (%d) reads rowid %d, not the deleted row %d", stale, rowid, last-1)
	}
	erased := func(id int64) bool { return id == last || id == last-1 }
	at := (page - 1) * pageSize
	for _, tc := range []struct {
		name   string
		more   int
		damage func(path string) // what else of the page's header is garbled
		whole  bool              // the page adds up by its pointer array: nothing unreadable
	}{
		{"More1", 1, func(string) {}, true},
		{"More2", 2, func(string) {}, true},
		// salv70: the page no longer adds up by any count, and SQLite
		// reads it without an error: the rows it returns through the
		// pointers past the true count must not come back.
		{"More1Fragments", 1, func(path string) { writeAt(t, path, at+7, []byte{data[7] ^ 1}) }, false},
		{"More2Fragments", 2, func(path string) { writeAt(t, path, at+7, []byte{data[7] ^ 0x10}) }, false},
		{"More1FirstFreeblock", 1, func(path string) { writeAt(t, path, at+1, []byte{data[1] ^ 0x08, data[2] ^ 0x21}) }, false},
		{"More2FirstFreeblock", 2, func(path string) { writeAt(t, path, at+1, []byte{0xff, 0xf0}) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.db")
			copyFile(t, sound, path)
			setCellCount(t, path, page, func(n int) int { return n + tc.more })
			tc.damage(path)
			res, got := copyOne(t, path, "t")
			for id, row := range got {
				if erased(id) || !same("t", row, id) {
					t.Fatalf("row %d kept as %v: deleted, or not the fixture's (report %+v)", id, row, res)
				}
			}
			for p, ids := range leaves {
				for _, id := range ids {
					_, kept := got[id]
					if !kept && !erased(id) && (tc.whole || p != page || !inRanges(res.Unreadable, id)) {
						t.Fatalf("row %d lost (report %+v)", id, res)
					}
				}
			}
			if res.Garbled != 0 || res.Invalid != 0 || tc.whole && len(res.Unreadable) != 0 {
				t.Fatalf("nothing was lost, and the report says %+v", res)
			}
		})
	}
}

// TestCopyTableLeafOneField: one field of a leaf's header garbled besides
// the cell count (its fragment count, its first freeblock, its content
// start, higher or lower) makes the page add up by no count, and SQLite
// still reads it whole: every row SQL returns is kept (broken.go vouches
// for them by the content start, or by the count when the content start
// is what is garbled). A cell pointer garbled costs a few rows of the
// page, reported unreadable.
func TestCopyTableLeafOneField(t *testing.T) {
	sound := filepath.Join(t.TempDir(), "sound.db")
	writeFixture(t, sound, "t")
	leaves, _ := leafRows(t, sound, "t")
	page := byFirstRow(leaves)[len(leaves)/2]
	b, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	data := b[(page-1)*pageSize : page*pageSize]
	content := binary.BigEndian.Uint16(data[5:])
	at := (page - 1) * pageSize
	for _, tc := range []struct {
		name string
		off  int64
		b    []byte
		lose int // rows of the page that may be lost
	}{
		{"Fragments", 7, []byte{data[7] ^ 0x04}, 0},
		{"FirstFreeblock", 1, []byte{0x02, 0x11}, 0},
		{"ContentHigher", 5, []byte{byte((content + 0x100) >> 8), byte(content)}, 0},
		{"ContentLower", 5, []byte{byte((content - 0x100) >> 8), byte(content)}, 0},
		{"Pointer", 8 + 2*3, []byte{0x0f, 0xf1}, 4}, // SQLite's search of the page meets it: as before salv70
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.db")
			copyFile(t, sound, path)
			writeAt(t, path, at+tc.off, tc.b)
			res, got := copyOne(t, path, "t")
			lost := 0
			for p, ids := range leaves {
				for _, id := range ids {
					row, kept := got[id]
					switch {
					case kept && !same("t", row, id):
						t.Fatalf("row %d kept as %v", id, row)
					case !kept && (p != page || !inRanges(res.Unreadable, id)):
						t.Fatalf("row %d of page %d lost, unreadable %v", id, p, res.Unreadable)
					case !kept:
						lost++
					}
				}
			}
			if lost > tc.lose {
				t.Fatalf("%d rows of page %d lost (report %+v)", lost, page, res)
			}
		})
	}
}
