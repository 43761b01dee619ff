package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestCheckFileExclusiveLock: behind another program's exclusive lock (a
// sqlite3 shell after PRAGMA locking_mode=EXCLUSIVE and a write), CheckFile
// fails with ErrDatabaseLocked after one busy timeout (10 s). It returned
// nil, leaving the lock to Open, which waited the busy timeout again:
// mnemo check took 20 s to fail where other commands take 10 s (readme54).
func TestCheckFileExclusiveLock(t *testing.T) {
	if testing.Short() {
		t.Skip("waits SQLite's busy timeout (10 s)")
	}
	ctx := context.Background()
	dir := salvageFixture(t, false)
	path := filepath.Join(dir, engine.DatabaseFile)
	other, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA locking_mode=EXCLUSIVE`, `CREATE TABLE zz_other (n INTEGER)`} {
		if _, err := other.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	err = engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{})
	if !errors.Is(err, engine.ErrDatabaseLocked) {
		t.Fatalf("CheckFile behind another program's exclusive lock: %v, want ErrDatabaseLocked", err)
	}
	other.Close()
	if err := engine.CheckFile(ctx, engine.Config{Dir: dir}, engine.CheckOptions{}); err != nil {
		t.Fatalf("once it let go: %v", err)
	}
}
