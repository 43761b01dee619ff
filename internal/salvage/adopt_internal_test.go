package salvage

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestAdoptOrphansTwoTables (rev65 #6): with the root pages of two tables
// garbled, the leaves below both are orphans, and one table's leaf must
// not be given to the other. Each leaf goes to the one table whose shape
// all its rows fit: u's rows (three values) fit only u, so they are all
// kept; t's rows (a NULL rowid alias and a text) fit u's shape too, so
// t's leaves go to neither, and t's rows are lost and reported
// unreadable, not copied into u.
func TestAdoptOrphansTwoTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.db")
	writeFixture(t, path, "t")
	writeFixture(t, path, "u")
	leavesT, interiorT := leafRows(t, path, "t")
	leavesU, interiorU := leafRows(t, path, "u")
	garblePage(t, path, interiorT[0], 1)
	garblePage(t, path, interiorU[0], 2)
	got := copyTables(t, path, "t", "u")
	res, rows := got["t"].res, got["t"].rows
	for id := range rows {
		t.Fatalf("t kept row %d from a page (report %+v)", id, res)
	}
	for _, ids := range leavesT {
		for _, id := range ids {
			if !inRanges(res.Unreadable, id) {
				t.Fatalf("t's row %d lost but not unreadable (%v)", id, res.Unreadable)
			}
		}
	}
	verifyCopy(t, "u", got["u"].res, got["u"].rows, leavesU, nil)
	if got["u"].res.Kept != fixtureRows {
		t.Fatalf("u: %+v", got["u"].res)
	}
}

type copied struct {
	res  Table
	rows map[int64][]any
}

// copyTables copies tables from src as Copy does (one locate for all of
// them, so an orphan leaf may fit any) and returns each one's report and
// rows.
func copyTables(t testing.TB, src string, tables ...string) map[string]copied {
	t.Helper()
	ctx := context.Background()
	sdb, err := openSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	ddb, err := sql.Open("sqlite", dsnOf(filepath.Join(t.TempDir(), "new.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer ddb.Close()
	ddb.SetMaxOpenConns(1)
	for _, table := range tables {
		if _, err := ddb.Exec(tableSchema[table]); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := ddb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := tablesOf(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := pageCount(ctx, sdb)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := locate(ctx, sdb, defs, pages)
	if err != nil || lp == nil {
		t.Fatalf("locate: %v", err)
	}
	defer lp.close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]copied{}
	for _, d := range defs {
		res, err := copyTable(ctx, sdb, tx, d, pages, lp)
		if err != nil {
			t.Fatalf("copyTable %s: %v", d.name, err)
		}
		out[d.name] = copied{res: res, rows: map[int64][]any{}}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	for _, table := range tables {
		rows, err := ddb.Query(`SELECT rowid, * FROM "` + table + `"`)
		if err != nil {
			t.Fatal(err)
		}
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
			out[table].rows[vals[0].(int64)] = vals
		}
		rows.Close()
	}
	return out
}
