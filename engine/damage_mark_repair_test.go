package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDamageMarkedOpenRepairsNothing: an Open that finds the record of
// damage (mnemo.db.damage-seen) writes none of its repairs of the stored
// embeddings into the file: a damaged one is not deleted, a missing one
// is not queued for embedding (as the working-memory configuration is not
// stored). Once the record is gone, the next Open repairs both. Before,
// Open deleted and queued while marked.
//
// SQLite only: it writes embeddings of the wrong length.
func TestDamageMarkedOpenRepairsNothing(t *testing.T) {
	ctx := context.Background()
	e, dir := damagedFixture(t)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	damageEmbeddings(t, dir, "m02")
	path := filepath.Join(dir, engine.DatabaseFile)
	execSQL(t, path, `DELETE FROM embeddings WHERE message_id = 'm03'`)
	mark := path + store.DamageMarkSuffix
	if err := os.WriteFile(mark, []byte(`{"seen":"2026-12-07T03:00:00Z","error":"database disk image is malformed (11)"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(sync bool) {
		t.Helper()
		e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
		if err != nil {
			t.Fatal(err)
		}
		if sync {
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	open(false)
	if got, want := fileCount(t, path, `SELECT count(*) FROM embeddings WHERE message_id = 'm02' AND length(vector) = 4`), 1; got != want {
		t.Errorf("damaged embedding rows of m02 after an open with the record: %d, want %d (not deleted)", got, want)
	}
	if got, want := fileCount(t, path, `SELECT (SELECT count(*) FROM embeddings WHERE message_id = 'm03') + (SELECT count(*) FROM outbox)`), 0; got != want {
		t.Errorf("embedding and outbox rows of m03 after an open with the record: %d, want %d (nothing queued)", got, want)
	}
	if err := os.Remove(mark); err != nil {
		t.Fatal(err)
	}
	open(true)
	if got, want := fileCount(t, path, `SELECT count(*) FROM embeddings WHERE message_id IN ('m02', 'm03') AND length(vector) != 4`), 2; got != want {
		t.Errorf("embeddings of m02 and m03 after an open without the record: %d, want %d (repaired)", got, want)
	}
}

// execSQL runs query on the SQLite file at path.
func execSQL(t *testing.T, path, query string) {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), query); err != nil {
		t.Fatal(err)
	}
}

// fileCount answers query, a count, on the SQLite file at path.
func fileCount(t *testing.T, path, query string) int {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
