//go:build linux

package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestDatabaseUnlinkedWhileOpen: walk43 F3. mnemo.db removed while the
// engine runs (rm under mnemo serve): a connection the pool opened later
// created a new, empty mnemo.db (mode 0644) beside the old WAL, and the
// engine reported the file damaged, advising salvage. Now connections
// open without create (mode=rw): no mnemo.db appears, and Ping says the
// file was removed, how to copy it out of /proc/PID/fd while the process
// holds it.
func TestDatabaseUnlinkedWhileOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "k", ResourceID: "r", Messages: []engine.Message{user("m1", "before the removal")}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	db := engine.DBOf(e)
	held, err := db.Conn(ctx) // the server's open connection to the removed file
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	db.SetMaxIdleConns(0) // every other query opens a connection of its own
	path := filepath.Join(dir, engine.DatabaseFile)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, _ = e.ThreadsPage(ctx, engine.ThreadsRequest{}) // a new connection
	if fi, err := os.Stat(path); err == nil {
		t.Errorf("a connection opened after the removal created %s (%d bytes, mode %v)", path, fi.Size(), fi.Mode().Perm())
	}
	err = e.Ping(ctx)
	var ue *engine.UnlinkedDatabaseError
	if !errors.As(err, &ue) || !errors.Is(err, engine.ErrNotDataDir) || errors.Is(err, engine.ErrDatabaseCorrupt) ||
		!strings.Contains(err.Error(), "/proc/") || !strings.Contains(err.Error(), "copy it out") || !strings.Contains(err.Error(), ".recovered-wal") {
		t.Fatalf("Ping after mnemo.db was removed: %v, want an UnlinkedDatabaseError naming /proc/PID/fd/N to copy it out", err)
	}
}
