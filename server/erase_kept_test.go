package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestEraseWarnsOfKeptDamaged: while a damaged database file kept by a
// salvage (mnemo.db.damaged-<time>) lies in the data directory, an
// erasure's answer names it and warns that it may still hold what was
// erased (no erasure reaches it); without one, there is no warning.
func TestEraseWarnsOfKeptDamaged(t *testing.T) {
	h := newHarness(t, true, server.Config{})
	h.seed("t-a", "res-alice", aliceToken, "first conversation")
	h.seed("t-b", "res-alice", aliceToken, "second conversation")
	var er server.EraseResult
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-a", aliceToken, nil, 200).decode(t, &er)
	if er.Warning != "" || len(er.KeptDamaged) != 0 {
		t.Fatalf("no kept file: %+v", er)
	}
	db, err := os.ReadFile(filepath.Join(h.e.Dir(), engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	kept := engine.DatabaseFile + ".damaged-20261203T010000Z"
	if err := os.WriteFile(filepath.Join(h.e.Dir(), kept), db, 0o600); err != nil {
		t.Fatal(err)
	}
	er = server.EraseResult{}
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-b", aliceToken, nil, 200).decode(t, &er)
	if len(er.Threads) != 1 || len(er.KeptDamaged) != 1 || er.KeptDamaged[0] != kept ||
		!strings.Contains(er.Warning, kept) || !strings.Contains(er.Warning, "may still hold what was erased") {
		t.Fatalf("with a kept file: %+v", er)
	}
	if strings.Contains(er.Warning, h.e.Dir()) {
		t.Fatalf("the warning names the server's directory: %q", er.Warning)
	}
	// A log an open set aside, and its -shm, are copies of the log, not
	// "damaged database files" (the warning said so of every kept file).
	if err := os.Remove(filepath.Join(h.e.Dir(), kept)); err != nil {
		t.Fatal(err)
	}
	logs := []string{engine.DatabaseFile + "-wal.damaged-20261203T010000Z", engine.DatabaseFile + "-shm.damaged-20261203T010000Z"}
	for _, k := range logs {
		if err := os.WriteFile(filepath.Join(h.e.Dir(), k), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.seed("t-c", "res-alice", aliceToken, "third conversation")
	er = server.EraseResult{}
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/t-c", aliceToken, nil, 200).decode(t, &er)
	if len(er.KeptDamaged) != 2 || !strings.Contains(er.Warning, "2 kept file(s)") || !strings.Contains(er.Warning, "write-ahead log and -shm") ||
		strings.Contains(er.Warning, "database file(s)") {
		t.Fatalf("with a kept log and -shm: %+v", er)
	}
}
