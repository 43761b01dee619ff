package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestOneShotCatchUpProgress: after the lexical index was found damaged
// (quarantined at open, every message queued again), each one-shot `mnemo
// search` gets the rebuild further, until it has caught up: Close lets the
// drainer finish the batch it is working on (engine.CloseDrainWait) instead
// of cancelling it. Before, a search closed the engine mid-batch and the
// backlog stayed where it was, run after run.
func TestOneShotCatchUpProgress(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", writeJSONL(t, 2000, nil)); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "check"); code != 0 { // caught up
		t.Fatalf("check: %d %s", code, stderr)
	}
	root := filepath.Join(dir, engine.LexicalDir, "store", "root.bolt")
	if err := os.WriteFile(root, bytes.Repeat([]byte{0xde, 0xad}, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	backlog := func() int {
		db, err := sql.Open("sqlite", filepath.Join(dir, "mnemo.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM outbox WHERE attempts >= 0`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	last := 2000 // the open quarantines the index and queues every message again
	for i := 1; last > 0; i++ {
		if i > 10 {
			t.Fatalf("after 10 searches %d of 2000 messages are still queued", last)
		}
		if code, _, stderr := run(t, nil, "--dir", dir, "search", "--resource", "r0", "refund"); code != 0 {
			t.Fatalf("search %d: %d %s", i, code, stderr)
		}
		n := backlog()
		t.Logf("after search %d: %d queued", i, n)
		if n >= last {
			t.Fatalf("search %d made no progress: %d queued, %d before", i, n, last)
		}
		last = n
	}
}
