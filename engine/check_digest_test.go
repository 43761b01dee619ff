package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckFullVerifiesDigests: a damaged overflow page (the rest of a
// long message's text) passes SQLite's integrity check, since nothing of
// SQLite's checks the bytes of a value; the full check compares every
// message with its stored digest, reports the garbled one by thread and
// seq (never its text) as database damage, and the quick check does not
// read every text.
func TestCheckFullVerifiesDigests(t *testing.T) {
	ctx := context.Background()
	dir := salvageFixture(t, false)
	path := filepath.Join(dir, engine.DatabaseFile)
	garbleOverflow(t, path)
	e, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Check(ctx); err != nil {
		t.Fatalf("quick check: %v", err)
	}
	err = e.CheckWith(ctx, engine.CheckOptions{Full: true})
	var ce *engine.CheckError
	if !errors.As(err, &ce) || !errors.Is(err, engine.ErrDatabaseCorrupt) || len(ce.Problems) > 0 {
		t.Fatalf("full check: %v", err)
	}
	if len(ce.Database) != 1 || !strings.Contains(ce.Database[0], "message 151 of thread t2") || strings.Contains(ce.Database[0], "sentence") {
		t.Fatalf("full check's findings: %q", ce.Database)
	}
}
