package salvage

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// deepRow is the body of row id of the deep fixture: about 1,300 bytes,
// three rows a leaf, so 3,000 rows make a b-tree of three levels.
func deepRow(id int64) string {
	return fmt.Sprintf("deep row %d %s", id, strings.Repeat("y", 1300))
}

// writeDeep writes a database holding table t (id, body) with rows
// 1..3000 of deepRow at path, then deletes the rows of del with
// secure_delete as given.
func writeDeep(t *testing.T, path string, secure bool, del string) {
	t.Helper()
	db, err := sql.Open("sqlite", dsnOf(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA page_size = 4096`, `PRAGMA journal_mode = DELETE`, tableSchema["t"], `BEGIN`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for id := int64(1); id <= fixtureRows; id++ {
		if _, err := db.Exec(`INSERT INTO t (id, body) VALUES (?, ?)`, id, deepRow(id)); err != nil {
			t.Fatal(err)
		}
	}
	sd := "OFF"
	if secure {
		sd = "ON"
	}
	for _, q := range []string{`COMMIT`, `PRAGMA secure_delete = ` + sd, `DELETE FROM t WHERE ` + del} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// interiorPages returns t's interior pages below its root, and its root.
func interiorPages(t *testing.T, path string) (below []int64, root int64) {
	t.Helper()
	db, err := sql.Open("sqlite", dsnOf(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 't'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT pageno FROM dbstat WHERE name = 't' AND pagetype = 'internal' AND pageno <> ? ORDER BY path`, root)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p int64
		rows.Scan(&p)
		below = append(below, p)
	}
	if len(below) < 2 {
		t.Fatalf("the deep fixture has %d interior pages below its root", len(below))
	}
	return below, root
}

// TestCopyTableInteriorCellCountHigher: an interior page of a b-tree of
// three levels whose cell count is garbled higher (one more, two more, a
// high bit), its root's or one below it, in a sound file and in one from
// which the rows of an interior page's last children were deleted (their
// cells past the count still name the freed leaves; with secure_delete
// off those keep the deleted rows). Every live row is kept as it was,
// none deleted comes back, none is invented, nothing is reported
// unreadable or lost.
func TestCopyTableInteriorCellCountHigher(t *testing.T) {
	for _, fx := range []struct {
		name   string
		secure bool
		del    string
	}{
		{"Sound", true, "0"},
		{"DeletedSecure", true, "id BETWEEN 1300 AND 1500"},
		{"DeletedInsecure", false, "id BETWEEN 1300 AND 1500"},
		{"DeletedEndInsecure", false, "id > 2600"},
		{"DeletedFirstInsecure", false, "id < 400"},
	} {
		sound := filepath.Join(t.TempDir(), "sound.db")
		writeDeep(t, sound, fx.secure, fx.del)
		below, root := interiorPages(t, sound)
		db, err := sql.Open("sqlite", dsnOf(sound))
		if err != nil {
			t.Fatal(err)
		}
		live := map[int64]bool{}
		rows, err := db.Query(`SELECT id FROM t`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			live[id] = true
		}
		rows.Close()
		db.Close()
		for _, page := range []int64{root, below[0], below[len(below)-1]} {
			for _, tc := range []struct {
				name string
				set  func(int) int
			}{
				{"More1", func(n int) int { return n + 1 }},
				{"More2", func(n int) int { return n + 2 }},
				{"HighBit", func(n int) int { return n | 0x100 }},
			} {
				t.Run(fmt.Sprintf("%s/%d/%s", fx.name, page, tc.name), func(t *testing.T) {
					path := filepath.Join(t.TempDir(), "damaged.db")
					copyFile(t, sound, path)
					setCellCount(t, path, page, tc.set)
					res, got := copyOne(t, path, "t")
					for id, row := range got {
						if !live[id] || row[2] != deepRow(id) {
							t.Fatalf("row %d kept (live %v): deleted, invented or changed (report %+v)", id, live[id], res)
						}
					}
					for id := range live {
						if _, kept := got[id]; !kept {
							t.Fatalf("row %d lost (report %+v)", id, res)
						}
					}
					if res.Garbled != 0 || res.Invalid != 0 || len(res.Unreadable) != 0 {
						t.Fatalf("nothing was lost, and the report says %+v", res)
					}
				})
			}
		}
	}
}
