package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-go/mnemo/internal/store"
)

func TestOpenMigratesAndReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var mode string
	db.QueryRow("PRAGMA user_version").Scan(&v)
	db.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if v != store.SchemaVersion || mode != "wal" {
		t.Fatalf("version %d mode %s", v, mode)
	}
	db.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Fatalf("database file mode %o, want 600", perm)
	}
	db, err = store.Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	db.Close()
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	_, err = store.Open(ctx, path)
	if !errors.Is(err, store.ErrSchemaTooNew) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want ErrSchemaTooNew naming the file", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("a refused database was modified")
	}
	raw, _ := sql.Open("sqlite", path)
	defer raw.Close()
	var v int
	raw.QueryRow("PRAGMA user_version").Scan(&v)
	if v != 999 {
		t.Fatalf("version changed to %d", v)
	}
}

func TestOpenRefusesGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	garbage := bytes.Repeat([]byte("not a database "), 400)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := store.Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want an error naming the file", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(garbage, after) {
		t.Fatal("a corrupt database file was modified")
	}
}

// TestIsCorrupt: a truncated database file fails Open with SQLite's
// SQLITE_CORRUPT, and a file that is not a database with SQLITE_NOTADB;
// IsCorrupt knows both, and not the refusal of a newer schema or a missing
// directory.
func TestIsCorrupt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 4096); err != nil { // page 1 of a schema that needs more
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "g.db")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("not a database "), 400), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, garbage} {
		_, err := store.Open(ctx, p)
		if err == nil || !store.IsCorrupt(err) {
			t.Errorf("Open(%s) = %v, want an error IsCorrupt knows", filepath.Base(p), err)
		}
	}
	for _, err := range []error{nil, store.ErrSchemaTooNew, os.ErrNotExist, errors.New("database disk image is malformed")} {
		if store.IsCorrupt(err) {
			t.Errorf("IsCorrupt(%v) = true", err)
		}
	}
}

func TestSchemaVersionMatchesMigrations(t *testing.T) {
	if store.SchemaVersion != store.MigrationCount() {
		t.Fatalf("SchemaVersion %d, %d migrations", store.SchemaVersion, store.MigrationCount())
	}
}

// TestSecureDeleteOnEveryConnection: secure_delete is a per-connection
// setting; the pool opens connections as it needs them, and each must
// have it (the DSN's _pragma runs on every new connection), or a delete
// through one of them would leave the deleted cells' bytes in the file.
func TestSecureDeleteOnEveryConnection(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var conns []*sql.Conn
	for i := 0; i < 6; i++ { // held at once: six distinct connections
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var on int
		if err := c.QueryRowContext(ctx, "PRAGMA secure_delete").Scan(&on); err != nil || on != 1 {
			t.Fatalf("connection %d: secure_delete = %d, %v; want 1", i, on, err)
		}
	}
	for _, c := range conns {
		c.Close()
	}
}

// TestOpenRefusesForeignSchema: a database at a mnemo schema version
// without its tables (dropped) is refused with ErrNoSchema and no table
// is created in it. Before (fix48), the open failed on a missing table
// later, or a migration met tables it did not expect.
func TestOpenRefusesForeignSchema(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stmts []string
	}{
		{"Dropped", []string{"CREATE TABLE notes (body TEXT)", "PRAGMA user_version = 3"}},
		{"DroppedWAL", []string{"PRAGMA journal_mode = WAL", "CREATE TABLE notes (body TEXT)", "PRAGMA user_version = 14"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.db")
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			raw.SetMaxOpenConns(1)
			for _, s := range tc.stmts {
				if _, err := raw.Exec(s); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := store.Open(context.Background(), path); !errors.Is(err, store.ErrNoSchema) {
				t.Fatalf("err = %v, want ErrNoSchema", err)
			}
			var tables int
			raw.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&tables)
			if tables != 1 {
				t.Fatalf("%d tables, want the 1 it held", tables)
			}
		})
	}
}

// TestIsCorruptPostgres: Postgres's SQLSTATEs of damaged data, XX001
// data_corrupted and XX002 index_corrupted, are damage; XX000 (an internal
// error) and other classes are not.
func TestIsCorruptPostgres(t *testing.T) {
	for code, want := range map[string]bool{"XX001": true, "XX002": true, "XX000": false, "40001": false, "23505": false} {
		err := fmt.Errorf("engine: read: %w", &pgconn.PgError{Code: code, Message: "invalid page in block 7 of relation base/5/16384"})
		if got := store.IsCorrupt(err); got != want {
			t.Errorf("IsCorrupt(SQLSTATE %s) = %v, want %v", code, got, want)
		}
	}
}
