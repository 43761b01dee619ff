package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// damageDatabase garbles the database page that holds marker the way stray
// writes do: the marker's bytes are overwritten (a message's text changes)
// and so is the page header's count of fragmented free bytes (SQLite's
// page layout: the page size is the big-endian uint16 at offset 16 of the
// file; byte 7 of a b-tree page header counts fragmented bytes). Every
// cell stays readable, so queries still answer — only an integrity check
// sees the damage. It returns the page number.
func damageDatabase(t *testing.T, dir string, marker string) int {
	t.Helper()
	path := filepath.Join(dir, engine.DatabaseFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(marker))
	if at < 0 {
		t.Fatalf("marker %q not in %s", marker, path)
	}
	pageSize := int(binary.BigEndian.Uint16(b[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	page := at / pageSize
	if page == 0 {
		t.Fatal("marker on page 1: the fixture needs more rows")
	}
	copy(b[at:], bytes.Repeat([]byte{'#'}, len(marker)))
	b[page*pageSize+7] ^= 0x3c
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return page + 1
}

// dbFixture stores enough messages to fill several database pages and
// closes the engine (so the WAL is checkpointed into the file).
func dbFixture(t *testing.T) (dir, marker string) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	marker = "zanzibar-lighthouse-keeper"
	for i := range 40 {
		text := fmt.Sprintf("message %d about the weather in a town by the sea, with enough words to take some room", i)
		if i == 30 {
			text = "the " + marker + " said the refund was approved"
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user(fmt.Sprintf("m%d", i), text)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("fixture check: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, engine.DatabaseFile+"-wal")); err == nil {
		if fi, _ := os.Stat(filepath.Join(dir, engine.DatabaseFile+"-wal")); fi.Size() > 0 {
			t.Fatalf("WAL not checkpointed at close (%d bytes)", fi.Size())
		}
	}
	return dir, marker
}

// TestCheckDamagedDatabase: a database page holding message text is
// overwritten; Check must report SQLite's integrity findings
// (ErrDatabaseCorrupt), quick by default and full on request. Before, Check
// only compared the indexes and said ok.
//
// SQLite only: it damages the database file.
func TestCheckDamagedDatabase(t *testing.T) {
	ctx := context.Background()
	dir, marker := dbFixture(t)
	page := damageDatabase(t, dir, marker)
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer e.Close()
	for _, full := range []bool{false, true} {
		err := e.CheckWith(ctx, engine.CheckOptions{Full: full})
		var ce *engine.CheckError
		if !errors.Is(err, engine.ErrDatabaseCorrupt) || !errors.As(err, &ce) || len(ce.Database) == 0 {
			t.Fatalf("full=%v: check after damaging page %d: %v, want ErrDatabaseCorrupt with findings", full, page, err)
		}
		if !errors.Is(err, engine.ErrInconsistent) {
			t.Errorf("full=%v: %v does not match ErrInconsistent", full, err)
		}
		t.Logf("full=%v: %v", full, ce.Database)
	}
}

// TestOpenTruncatedDatabase: a mnemo.db cut short (here to its first page,
// SQLite cannot read the schema) fails Open with ErrDatabaseCorrupt, so the
// caller can tell it from other open failures and restore a backup; the
// message still names the file. Before, Open returned SQLite's error alone.
//
// SQLite only: it truncates the database file.
func TestOpenTruncatedDatabase(t *testing.T) {
	dir, _ := dbFixture(t)
	path := filepath.Join(dir, engine.DatabaseFile)
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	_, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if !errors.Is(err, engine.ErrDatabaseCorrupt) || !strings.Contains(err.Error(), path) {
		t.Fatalf("open of a truncated database: %v, want ErrDatabaseCorrupt naming %s", err, path)
	}
	// The lock is released: the next open fails the same way, not as locked.
	if _, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}}); errors.Is(err, engine.ErrLocked) || !errors.Is(err, engine.ErrDatabaseCorrupt) {
		t.Fatalf("second open: %v", err)
	}
}

// TestCheckSoundDatabase: an undamaged database passes both checks.
//
// SQLite only: SQLite's integrity check of the database file.
func TestCheckSoundDatabase(t *testing.T) {
	ctx := context.Background()
	dir, _ := dbFixture(t)
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, full := range []bool{false, true} {
		if err := e.CheckWith(ctx, engine.CheckOptions{Full: full}); err != nil {
			t.Fatalf("full=%v: %v", full, err)
		}
	}
}

// TestCheckEscalatesWhenIndexesDisagree: a database whose structure is
// sound but whose SQL indexes no longer match their rows passes
// quick_check; the lost rows then show up as an index disagreement, and
// Check advised `mnemo reindex`, which cannot repair the database. When the
// indexes disagree with a database that passed the quick check, Check now
// runs the full integrity check too and reports the database as damaged.
//
// SQLite only: the derived index files beside the database.
func TestCheckEscalatesWhenIndexesDisagree(t *testing.T) {
	ctx := context.Background()
	dir, _ := dbFixture(t)
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	// An embedding of no stored message (the vector index disagrees), and
	// an SQL index whose definition no longer matches its b-tree (what a
	// garbled byte in a row does; quick_check does not compare them).
	for _, q := range []string{
		`INSERT INTO embeddings SELECT 'ghost-id', embedder, resource_id, dims, vector FROM embeddings LIMIT 1`,
		`PRAGMA writable_schema=ON`,
		`UPDATE sqlite_schema SET sql = 'CREATE INDEX embeddings_by_resource ON embeddings(resource_id, embedder)' WHERE name = 'embeddings_by_resource'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var quick string
	if err := db.QueryRow(`PRAGMA quick_check`).Scan(&quick); err != nil || quick != "ok" {
		t.Fatalf("the fixture should pass quick_check: %q, %v", quick, err)
	}
	db.Close()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.Check(ctx)
	var ce *engine.CheckError
	if !errors.Is(err, engine.ErrDatabaseCorrupt) || !errors.As(err, &ce) || len(ce.Database) == 0 || len(ce.Problems) == 0 {
		t.Fatalf("check: %v; want ErrDatabaseCorrupt with the integrity findings and the index disagreement", err)
	}
}
