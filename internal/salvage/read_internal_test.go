package salvage

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// The tests of this file copy one table of a real SQLite file whose pages
// were garbled, with copyTable, and compare what it kept and what it
// reported unreadable with the rows each page held.

const (
	fixtureRows = 3000
	pageSize    = 4096
)

// tableSchema is the table the fixture holds: rowid-aliased (t) or with
// the rowid apart from its key and a NOT NULL BLOB column (u).
var tableSchema = map[string]string{
	"t": `CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`,
	"u": `CREATE TABLE u (k TEXT PRIMARY KEY, v BLOB NOT NULL, n INTEGER)`,
}

// fixtureRow is the row of rowid id, as copyTable reads it (rowid first).
func fixtureRow(table string, id int64) []any {
	if table == "t" {
		return []any{id, id, fmt.Sprintf("row %d of the fixture, %s", id, strings.Repeat("x", int(id%40)))}
	}
	v := []byte(fmt.Sprintf("value %d", id))
	if id%97 == 0 {
		v = []byte{} // an empty blob: read back as nil, written as x''
	}
	return []any{id, fmt.Sprintf("key-%06d", id), v, id * 3}
}

// writeFixture writes a database holding table (fixtureRows rows, rowids
// 1..fixtureRows) at path, in rollback-journal mode (no WAL beside it).
func writeFixture(t testing.TB, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", dsnOf(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA page_size = 4096`, `PRAGMA journal_mode = DELETE`, tableSchema[table], `BEGIN`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for id := int64(1); id <= fixtureRows; id++ {
		row := fixtureRow(table, id)
		var err error
		if table == "t" {
			_, err = db.Exec(`INSERT INTO t (id, body) VALUES (?, ?)`, row[1:]...)
		} else {
			_, err = db.Exec(`INSERT INTO u (rowid, k, v, n) VALUES (?, ?, ?, ?)`, row...)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`COMMIT`); err != nil {
		t.Fatal(err)
	}
}

// leafRows maps each leaf page of table in the sound file at path to the
// rowids it holds; roots lists its interior pages.
func leafRows(t testing.TB, path, table string) (leaves map[int64][]int64, interior []int64) {
	t.Helper()
	db, err := sql.Open("sqlite", dsnOf(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	leaves = map[int64][]int64{}
	rows, err := db.Query(`SELECT pageno, pagetype FROM dbstat WHERE name = ? AND pagetype IN ('leaf', 'internal') ORDER BY pageno`, table)
	if err != nil {
		t.Fatal(err)
	}
	var pages []int64
	for rows.Next() {
		var p int64
		var typ string
		rows.Scan(&p, &typ)
		if typ == "internal" {
			interior = append(interior, p)
		} else {
			pages = append(pages, p)
		}
	}
	rows.Close()
	// The rowids of each leaf: the sqlite_dbpage-free way, by the page
	// each row's cell sits on (dbstat's path order follows rowid order).
	rows, err = db.Query(`SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path`, table)
	if err != nil {
		t.Fatal(err)
	}
	next := int64(1)
	for rows.Next() {
		var p int64
		var n int
		rows.Scan(&p, &n)
		for range n {
			leaves[p] = append(leaves[p], next)
			next++
		}
	}
	rows.Close()
	if next-1 != fixtureRows || len(leaves) != len(pages) {
		t.Fatalf("the fixture's leaves hold %d rows on %d pages (dbstat lists %d)", next-1, len(leaves), len(pages))
	}
	return leaves, interior
}

// garblePage overwrites page (1-based) of the file at path with bytes
// drawn from seed.
func garblePage(t testing.TB, path string, page int64, seed uint64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, pageSize)
	r := rand.New(rand.NewPCG(seed, uint64(page)))
	for i := range buf {
		buf[i] = byte(r.UintN(256))
	}
	if _, err := f.WriteAt(buf, (page-1)*pageSize); err != nil {
		t.Fatal(err)
	}
}

// copyOne copies table from the (damaged) file at src into a new file of
// the same schema with copyTable, and returns its report and the rows
// written, by rowid.
func copyOne(t testing.TB, src, table string) (Table, map[int64][]any) {
	t.Helper()
	ctx := context.Background()
	sdb, err := openSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	dst := filepath.Join(t.TempDir(), "new.db")
	ddb, err := sql.Open("sqlite", dsnOf(dst))
	if err != nil {
		t.Fatal(err)
	}
	defer ddb.Close()
	ddb.SetMaxOpenConns(1)
	if _, err := ddb.Exec(tableSchema[table]); err != nil {
		t.Fatal(err)
	}
	conn, err := ddb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := tablesOf(ctx, conn)
	if err != nil || len(defs) != 1 {
		t.Fatalf("tablesOf: %v %+v", err, defs)
	}
	pages, err := pageCount(ctx, sdb)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := locate(ctx, sdb, defs, pages)
	if err != nil {
		t.Fatal(err)
	}
	defer lp.close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := copyTable(ctx, sdb, tx, defs[0], pages, lp)
	if err != nil {
		t.Fatalf("copyTable: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	got := map[int64][]any{}
	rows, err := ddb.Query(`SELECT rowid, * FROM "` + table + `"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		got[vals[0].(int64)] = vals
	}
	return res, got
}

// same reports whether a row written equals the fixture's row.
func same(table string, got []any, id int64) bool {
	want := fixtureRow(table, id)
	return fmt.Sprint(normalize(got)) == fmt.Sprint(normalize(want))
}

func normalize(row []any) []any {
	out := make([]any, len(row))
	for i, v := range row {
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		out[i] = v
	}
	return out
}

// inRanges reports whether id lies in one of rs.
func inRanges(rs []Range, id int64) bool {
	return slices.ContainsFunc(rs, func(r Range) bool { return r.From <= id && id <= r.To })
}

// verifyCopy checks what copyTable did against the rows each leaf held,
// the leaves in bad garbled: every row of an intact leaf is kept as it
// was and in no unreadable range; every row of a garbled leaf that was
// not kept is in one; no row is kept that the fixture did not hold.
func verifyCopy(t testing.TB, table string, res Table, got map[int64][]any, leaves map[int64][]int64, bad map[int64]bool) {
	t.Helper()
	lost := 0
	for page, ids := range leaves {
		for _, id := range ids {
			row, kept := got[id]
			switch {
			case kept && !same(table, row, id):
				t.Fatalf("row %d (page %d): kept as %v, was %v", id, page, row, fixtureRow(table, id))
			case !bad[page] && !kept:
				t.Fatalf("row %d of intact page %d was not kept (unreadable %v)", id, page, res.Unreadable)
			case !bad[page] && inRanges(res.Unreadable, id):
				t.Fatalf("row %d of intact page %d is in an unreadable range (%v)", id, page, res.Unreadable)
			case bad[page] && !kept && !inRanges(res.Unreadable, id):
				t.Fatalf("row %d of garbled page %d was lost but is in no unreadable range (%v)", id, page, res.Unreadable)
			case !kept:
				lost++
			}
		}
	}
	for id := range got {
		if id < 1 || id > fixtureRows {
			t.Fatalf("row %d kept: the fixture holds no such row", id)
		}
	}
	if int64(len(got)) != res.Kept || res.Kept != int64(fixtureRows-lost) || res.Invalid != 0 || res.Garbled != 0 {
		t.Fatalf("kept %d rows (report: %+v), lost %d of %d", len(got), res, lost, fixtureRows)
	}
}

// TestCopyTableBisect: garbled leaf pages cost exactly the rows they
// held, wherever they are (first, middle, last, adjacent, scattered), in
// a rowid-aliased table and in one whose rowid is apart from its key; a
// garbled root page costs the table, reported unreadable from 1 to the
// end.
func TestCopyTableBisect(t *testing.T) {
	for _, table := range []string{"t", "u"} {
		sound := filepath.Join(t.TempDir(), "sound.db")
		writeFixture(t, sound, table)
		leaves, interior := leafRows(t, sound, table)
		order := make([]int64, 0, len(leaves))
		for p := range leaves {
			order = append(order, p)
		}
		slices.SortFunc(order, func(a, b int64) int { return int(leaves[a][0] - leaves[b][0]) })
		n := len(order)
		for _, tc := range []struct {
			name string
			bad  []int64
		}{
			{"None", nil},
			{"First", order[:1]},
			{"Middle", order[n/2 : n/2+1]},
			{"Last", order[n-1:]},
			{"Adjacent", order[n/3 : n/3+2]},
			{"Scattered", []int64{order[1], order[n/4], order[n/2+3], order[n-2]}},
			{"FirstAndLast", []int64{order[0], order[n-1]}},
		} {
			t.Run(table+"/"+tc.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "damaged.db")
				copyFile(t, sound, path)
				bad := map[int64]bool{}
				for i, p := range tc.bad {
					garblePage(t, path, p, uint64(i+1))
					bad[p] = true
				}
				res, got := copyOne(t, path, table)
				verifyCopy(t, table, res, got, leaves, bad)
				if len(tc.bad) == 0 && len(res.Unreadable) > 0 {
					t.Fatalf("a sound table reported unreadable ranges %v", res.Unreadable)
				}
			})
		}
		// An interior page garbled whole, or only its cell count, hides
		// every leaf below it from SQL: they are read from their pages,
		// every row kept as it was.
		for _, tc := range []struct {
			name   string
			damage func(path string, page int64)
		}{
			{"Root", func(path string, page int64) { garblePage(t, path, page, 9) }},
			{"RootCellCountZero", func(path string, page int64) { setCellCount(t, path, page, func(n int) int { return 0 }) }},
			{"RootCellCountMore", func(path string, page int64) { setCellCount(t, path, page, func(n int) int { return n + 2 }) }},
			{"RootCellCountHigh", func(path string, page int64) { setCellCount(t, path, page, func(n int) int { return n | 0xff00 }) }},
		} {
			t.Run(table+"/"+tc.name, func(t *testing.T) {
				if len(interior) == 0 {
					t.Fatal("the fixture's table has no interior page")
				}
				path := filepath.Join(t.TempDir(), "damaged.db")
				copyFile(t, sound, path)
				tc.damage(path, interior[0])
				res, got := copyOne(t, path, table)
				verifyCopy(t, table, res, got, leaves, nil)
				if inRanges(res.Unreadable, fixtureRows) {
					t.Fatalf("root damaged: %d rows kept from leaf pages, unreadable %v", res.FromPages, res.Unreadable)
				}
			})
		}
	}
}

// setCellCount sets the cell count of b-tree page (1-based, not page 1)
// of the file at path to what set makes of it.
func setCellCount(t testing.TB, path string, page int64, set func(int) int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 2)
	if _, err := f.ReadAt(b, (page-1)*pageSize+3); err != nil {
		t.Fatal(err)
	}
	n := set(int(b[0])<<8 | int(b[1]))
	if _, err := f.WriteAt([]byte{byte(n >> 8), byte(n)}, (page-1)*pageSize+3); err != nil {
		t.Fatal(err)
	}
}

// dsnOf is the DSN of the file at path (a fuzz test's directory name
// holds a '#', which a file: URI would take for a fragment).
func dsnOf(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath()
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// FuzzCopyTableBisect garbles the leaf pages a mask picks (of the first 64
// in rowid order), with bytes drawn from seed, and checks what verifyCopy
// checks: intact rows kept exactly and never reported unreadable, the
// rows lost all within unreadable ranges, none invented.
func FuzzCopyTableBisect(f *testing.F) {
	sound := filepath.Join(f.TempDir(), "sound.db")
	writeFixture(f, sound, "t")
	leaves, _ := leafRows(f, sound, "t")
	order := make([]int64, 0, len(leaves))
	for p := range leaves {
		order = append(order, p)
	}
	slices.SortFunc(order, func(a, b int64) int { return int(leaves[a][0] - leaves[b][0]) })
	f.Add(uint64(1), uint64(0b1))
	f.Add(uint64(2), uint64(0b1010_0110_0001))
	f.Add(uint64(3), uint64(1)<<uint(len(order)-1))
	f.Add(uint64(4), ^uint64(0)>>(64-uint(min(len(order), 64)-2))) // every leaf but the last two
	f.Fuzz(func(t *testing.T, seed, mask uint64) {
		path := filepath.Join(t.TempDir(), "damaged.db")
		copyFile(t, sound, path)
		bad := map[int64]bool{}
		for i, p := range order {
			if i < 64 && mask&(1<<uint(i)) != 0 {
				garblePage(t, path, p, seed)
				bad[p] = true
			}
		}
		res, got := copyOne(t, path, "t")
		verifyCopy(t, "t", res, got, leaves, bad)
	})
}
