package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestRebind: Postgres numbers placeholders as SQLite binds them (?NNN is
// argument NNN, a bare ? the next after the highest so far) and leaves
// question marks in literals, quoted identifiers and comments; SQLite
// runs the text as written.
func TestRebind(t *testing.T) {
	tests := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`UPDATE t SET a = ?2 WHERE a = ?1 AND (?3 = '' OR b = ?3)`, `UPDATE t SET a = $2 WHERE a = $1 AND ($3 = '' OR b = $3)`},
		{`SELECT ?2, ?, ?1, ?`, `SELECT $2, $3, $1, $4`},
		{`SELECT '?', 'it''s ?', "odd?col", ? -- why?` + "\n" + `, /* ? */ ?`, `SELECT '?', 'it''s ?', "odd?col", $1 -- why?` + "\n" + `, /* ? */ $2`},
		{`IN (?,?,?) OR x IN (?,?,?)`, `IN ($1,$2,$3) OR x IN ($4,$5,$6)`},
		{`SELECT 'unterminated ?`, `SELECT 'unterminated ?`},
		{`SELECT ? /* unterminated ?`, `SELECT $1 /* unterminated ?`},
		{`SELECT $1`, `SELECT $1`},
	}
	for _, tc := range tests {
		if got := store.Postgres.Rebind(tc.in); got != tc.want {
			t.Errorf("Postgres.Rebind(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if got := store.SQLite.Rebind(tc.in); got != tc.in {
			t.Errorf("SQLite.Rebind(%q) = %q, want the text unchanged", tc.in, got)
		}
	}
	if got := store.Postgres.Text("INSERT OR IGNORE", "ON CONFLICT"); got != "ON CONFLICT" {
		t.Errorf("Postgres.Text = %q", got)
	}
	if got := store.SQLite.Text("INSERT OR IGNORE", "ON CONFLICT"); got != "INSERT OR IGNORE" {
		t.Errorf("SQLite.Text = %q", got)
	}
}

// TestDialectOfSQLite: the SQLite pool, its transactions and Bound speak
// SQLite, and Bound hands the pool back unwrapped (the SQLite path runs
// the text as written, at no cost).
func TestDialectOfSQLite(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if d := store.DialectOf(db); d != store.SQLite || d.String() != "sqlite" {
		t.Fatalf("DialectOf(SQLite pool) = %v", d)
	}
	if c := store.Bound(db); c != store.Conn(db) {
		t.Fatalf("Bound(SQLite pool) = %T, want the pool itself", c)
	}
	if d := store.NewStmts(db).Dialect(); d != store.SQLite {
		t.Fatalf("Stmts dialect = %v", d)
	}
	tx, err := store.Begin(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if tx.Dialect != store.SQLite || store.DialectOfConn(tx) != store.SQLite || store.DialectOfConn(tx.Tx) != store.SQLite {
		t.Fatalf("transaction dialect = %v", tx.Dialect)
	}
	var n int
	if err := store.Bound(tx).QueryRowContext(ctx, `SELECT ? + ?`, 2, 3).Scan(&n); err != nil || n != 5 {
		t.Fatalf("SELECT ? + ? = %d, %v", n, err)
	}
}

// BenchmarkRebind measures what Bound costs per statement on Postgres
// (Stmts rebinds once per statement and pays nothing per call).
func BenchmarkRebind(b *testing.B) {
	q := `UPDATE journal SET thread_id = ?2, resource_id = CASE WHEN resource_id = ?3 THEN ?4 ELSE resource_id END WHERE thread_id = ?1 AND (?5 = '' OR resource_id = ?5)`
	b.ReportAllocs()
	for b.Loop() {
		_ = store.Postgres.Rebind(q)
	}
}
