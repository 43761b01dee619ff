package store_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/store"
)

// TestCloseDamagedKeepsWAL: once a read met a garbled page (SQLITE_CORRUPT)
// the database is Damaged, and CloseDB leaves the file and its WAL byte for
// byte as they were, for salvage: neither the checkpoint SQLite runs when
// the last connection closes nor CheckpointPassive copies the WAL into the
// damaged file or removes it. Before, CloseDB folded the WAL into the file
// and removed it. A sound database is closed as before: checkpointed, its
// WAL removed.
func TestCloseDamagedKeepsWAL(t *testing.T) {
	ctx := context.Background()
	for _, damaged := range []bool{true, false} {
		name := map[bool]string{true: "Damaged", false: "Sound"}[damaged]
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.db")
			db, err := store.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{`CREATE TABLE y (a TEXT)`, `CREATE TABLE z (a TEXT)`, `INSERT INTO z VALUES ('a row of z')`} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			var root, pageSize int64
			if err := db.QueryRowContext(ctx, `SELECT rootpage FROM sqlite_master WHERE name = 'z'`).Scan(&root); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
				t.Fatal(err)
			}
			if err := store.CloseDB(db); err != nil { // checkpointed: everything in the main file
				t.Fatal(err)
			}
			if damaged {
				f, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteAt(bytes.Repeat([]byte{0x5a}, int(pageSize)), (root-1)*pageSize); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			if db, err = store.Open(ctx, path); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, err := db.ExecContext(ctx, `INSERT INTO y VALUES ('a late row')`); err != nil {
					t.Fatal(err)
				}
			}
			var rows int
			err = db.QueryRowContext(ctx, `SELECT count(*) FROM z`).Scan(&rows)
			if store.IsCorrupt(err) != damaged || store.Damaged(db) != damaged {
				t.Fatalf("reading z: %v; Damaged %v, want %v", err, store.Damaged(db), damaged)
			}
			// The read's own error says so too (errors.Is), SQLite's text kept.
			if errors.Is(err, store.ErrDatabaseCorrupt) != damaged || damaged && !strings.Contains(err.Error(), "malformed") {
				t.Fatalf("reading z: %v: errors.Is ErrDatabaseCorrupt %v, want %v with SQLite's text", err, errors.Is(err, store.ErrDatabaseCorrupt), damaged)
			}
			mainBytes, _ := os.ReadFile(path)
			walBytes, err := os.ReadFile(path + "-wal")
			if err != nil || len(walBytes) == 0 {
				t.Fatalf("no WAL before the close: %v", err)
			}
			if err := store.CheckpointPassive(ctx, db); err != nil {
				t.Fatal(err)
			}
			if err := store.CloseDB(db); err != nil {
				t.Fatalf("close: %v", err)
			}
			gotMain, _ := os.ReadFile(path)
			gotWAL, walErr := os.ReadFile(path + "-wal")
			if !damaged {
				if walErr == nil && len(gotWAL) > 0 || bytes.Equal(gotMain, mainBytes) {
					t.Fatalf("sound database: WAL left %d bytes (%v), main file unchanged %v; want it checkpointed and removed",
						len(gotWAL), walErr, bytes.Equal(gotMain, mainBytes))
				}
				return
			}
			if !bytes.Equal(gotMain, mainBytes) || walErr != nil || !bytes.Equal(gotWAL, walBytes) {
				t.Fatalf("damaged database after close: main file same %v, WAL same %v (%v)", bytes.Equal(gotMain, mainBytes), bytes.Equal(gotWAL, walBytes), walErr)
			}
			// Reopened, the late rows are read from the kept WAL.
			db, err = store.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer store.CloseDB(db)
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM y`).Scan(&rows); err != nil || rows != 3 {
				t.Fatalf("rows of y after the close: %d, %v; want 3", rows, err)
			}
		})
	}
}

// TestDamagedOnlyForCorruption: other errors (a constraint, a syntax
// error) do not mark a database damaged, nor does a database Open did not
// open.
func TestDamagedOnlyForCorruption(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.CloseDB(db)
	for _, q := range []string{`CREATE TABLE u (a TEXT PRIMARY KEY)`, `INSERT INTO u VALUES ('x')`, `INSERT INTO u VALUES ('x')`, `SELEC 1`} {
		_, err := db.ExecContext(ctx, q)
		if err != nil && !strings.Contains(err.Error(), "UNIQUE") && !strings.Contains(err.Error(), "syntax") {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if store.Damaged(db) {
		t.Fatal("a constraint or syntax error marked the database damaged")
	}
	if store.Damaged(nil) {
		t.Fatal("Damaged(nil)")
	}
}
