package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestReplacedRefusesNewConnections: once the file was found replaced,
// the pool opens no new connection (ErrDatabaseReplaced), as one would
// read the new file through the old file's -wal and -shm; the
// connections open before go on reading the old file. Before (rev68), a
// read the pool gave a new connection read the mixture: under load
// engine's TestRestoreRenamedOverOpenDatabase saw its erasure fail with
// "no such table: threads" instead of ErrDatabaseReplaced.
func TestReplacedRefusesNewConnections(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	if _, err := db.ExecContext(ctx, `CREATE TABLE y (a TEXT); INSERT INTO y VALUES ('old')`); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "backup.db")
	b, err := store.Open(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CloseDB(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil { // a restore under the open database
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * store.DamageMarkRecheck); store.Replaced(db) == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the replacement was not noticed")
		}
	}
	var held []*sql.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range 16 { // the idle connections first, then a new one
		c, err := db.Conn(ctx)
		if err != nil {
			if !errors.Is(err, store.ErrDatabaseReplaced) {
				t.Fatalf("a new connection: %v, want ErrDatabaseReplaced", err)
			}
			if len(held) == 0 {
				t.Fatal("no connection of the pool was left open")
			}
			var a string
			if err := held[0].QueryRowContext(ctx, `SELECT a FROM y`).Scan(&a); err != nil || a != "old" {
				t.Fatalf("a connection opened before reads %q, %v; want the old file's row", a, err)
			}
			return
		}
		held = append(held, c)
	}
	t.Fatalf("%d connections opened after the replacement, want ErrDatabaseReplaced", len(held))
}
