package salvage

import (
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestCopyTableKeepsErasure: rows deleted before the damage never come
// back from the pages that held them, even with secure_delete off (the
// worst case: their bytes are still in the file). The fixture deletes a
// third of its rows, which frees whole leaf pages and leaves freeblocks
// on others; then its root page is garbled, so its leaves are read from
// their pages. The pages on the freelist are not read; with the freelist
// garbled too, no page that no b-tree reaches is (the rows below the
// root are lost, not the erasure).
func TestCopyTableKeepsErasure(t *testing.T) {
	const from, to = 1001, 2000
	sound := filepath.Join(t.TempDir(), "sound.db")
	writeFixture(t, sound, "t")
	db, err := sql.Open("sqlite", dsnOf(sound))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`PRAGMA secure_delete = OFF`, `DELETE FROM t WHERE id BETWEEN 1001 AND 2000`, `DELETE FROM t WHERE id % 7 = 0`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var root, trunk int64
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 't'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	db.Close()
	b, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	if trunk = int64(binary.BigEndian.Uint32(b[32:])); trunk == 0 {
		t.Fatal("the fixture has no free page")
	}
	kept := func(id int64) bool { return (id < from || id > to) && id%7 != 0 }
	for _, tc := range []struct {
		name     string
		freelist bool // the freelist's trunk page is garbled too
	}{{"Freelist", false}, {"FreelistGarbled", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.db")
			copyFile(t, sound, path)
			garblePage(t, path, root, 9)
			if tc.freelist {
				garblePage(t, path, trunk, 10)
			}
			res, got := copyOne(t, path, "t")
			for id, row := range got {
				if !kept(id) || !same("t", row, id) {
					t.Fatalf("row %d kept as %v: deleted, or not the fixture's", id, row)
				}
			}
			n := 0
			for id := int64(1); id <= fixtureRows; id++ {
				if kept(id) {
					n++
				}
			}
			if want := n; !tc.freelist && len(got) != want {
				t.Fatalf("kept %d rows, want the %d not deleted (report %+v)", len(got), want, res)
			}
		})
	}
}
