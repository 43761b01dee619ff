package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckEscalationVerifiesDigests: when the indexes disagree with a
// database that passed the quick check, Check escalates to the full
// checks, and those are the ones CheckOptions.Full runs: SQLite's
// integrity_check and the messages' digests. A garbled overflow page
// passes integrity_check; before, the escalation ran only that, and Check
// advised a reindex (which would index the garbled text) instead of
// reporting the database as damaged.
func TestCheckEscalationVerifiesDigests(t *testing.T) {
	ctx := context.Background()
	dir := salvageFixture(t, false)
	path := filepath.Join(dir, engine.DatabaseFile)
	garbleOverflow(t, path)
	// An embedding of no stored message: the vector index disagrees.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO embeddings SELECT 'ghost-id', embedder, resource_id, dims, vector FROM embeddings LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, full := range []bool{false, true} {
		err = e.CheckWith(ctx, engine.CheckOptions{Full: full})
		var ce *engine.CheckError
		if !errors.As(err, &ce) || !errors.Is(err, engine.ErrDatabaseCorrupt) || len(ce.Problems) == 0 {
			t.Fatalf("full=%v: %v; want the database damaged and the index disagreement", full, err)
		}
		if len(ce.Database) != 1 || !strings.Contains(ce.Database[0], "message 151 of thread t2") {
			t.Fatalf("full=%v: database findings %q", full, ce.Database)
		}
	}
}
