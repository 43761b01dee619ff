package server_test

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// TestDatabaseReplacedRefused: a backup renamed over mnemo.db under the
// running server (mv backup.db mnemo.db) makes /healthz and every write
// answer the lasting 503 database-replaced, whose detail says to restart
// it (and to delete the old file's -wal and -shm first), within a reread
// of the record of damage. Before, /healthz answered 200 and appends 201,
// each written into the old file, lost at the restart.
func TestDatabaseReplacedRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	h := newHarnessFor(t, true, server.Config{}, e)
	appendOne := func() response {
		return h.do("POST", "/v1/threads/t/messages", bobToken, map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"role": "user", "content": "one more"}}})
	}
	if r := appendOne(); r.status != http.StatusCreated && r.status != http.StatusOK {
		t.Fatalf("append before: status %d; body %s", r.status, r.body)
	}
	path := filepath.Join(dir, engine.DatabaseFile)
	backup := filepath.Join(t.TempDir(), "backup.db")
	ro, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ro.Exec(`VACUUM INTO ?`, backup)
	ro.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(backup, path); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * store.DamageMarkRecheck)
	for h.do("GET", "/healthz", "", nil).status != http.StatusServiceUnavailable {
		if time.Now().After(deadline) {
			t.Fatalf("/healthz after mnemo.db was replaced: not 503 after %v", 5*store.DamageMarkRecheck)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for what, r := range map[string]response{"healthz": h.do("GET", "/healthz", "", nil), "append": appendOne()} {
		if r.status != http.StatusServiceUnavailable {
			t.Fatalf("%s after the replacement: status %d, want 503; body %s", what, r.status, r.body)
		}
		if p := r.problem(t); p.Type != server.ProblemTypeBase+"database-replaced" || p.Detail != server.DatabaseReplacedDetail {
			t.Errorf("%s after the replacement: problem %+v, want database-replaced", what, p)
		}
		if ra := r.header.Get("Retry-After"); ra != "" {
			t.Errorf("%s: Retry-After %q on a refusal that lasts until a restart", what, ra)
		}
	}
}
