package server_test

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
// it (and to delete the old file's -wal and -shm first, and to reindex),
// within a reread of the record of damage. Before, /healthz answered 200
// and appends 201, each written into the old file, lost at the restart.
// Its -wal removed (Linux) answers the same problem with the detail of a
// removed log, which a clean stop keeps (readme68 F11: it said mnemo.db
// was replaced).
func TestDatabaseReplacedRefused(t *testing.T) {
	for _, c := range []struct {
		name    string
		replace func(t *testing.T, path string)
		detail  string
	}{
		{"OK", renameBackupOver, server.DatabaseReplacedDetail},
		{"WALRemoved", func(t *testing.T, path string) {
			if runtime.GOOS != "linux" {
				t.Skip("the removed -wal is found through /proc/self/fd")
			}
			if err := os.Remove(path + "-wal"); err != nil {
				t.Fatal(err)
			}
		}, server.WALReplacedDetail},
	} {
		t.Run(c.name, func(t *testing.T) { testReplacedRefused(t, c.replace, c.detail) })
	}
}

// testReplacedRefused replaces the server's file with replace and checks
// /healthz and an append answer 503 database-replaced with detail.
func testReplacedRefused(t *testing.T, replace func(*testing.T, string), detail string) {
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
	replace(t, filepath.Join(dir, engine.DatabaseFile))
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
		if p := r.problem(t); p.Type != server.ProblemTypeBase+"database-replaced" || p.Detail != detail {
			t.Errorf("%s after the replacement: problem %+v, want database-replaced with detail %q", what, p, detail)
		}
		if ra := r.header.Get("Retry-After"); ra != "" {
			t.Errorf("%s: Retry-After %q on a refusal that lasts until a restart", what, ra)
		}
	}
	// The restored file lacks what the indexes hold: the steps reindex
	// (readme68 F5).
	if !strings.Contains(server.DatabaseReplacedDetail, "mnemo --dir DIR reindex") {
		t.Errorf("DatabaseReplacedDetail does not say to reindex: %s", server.DatabaseReplacedDetail)
	}
}

// renameBackupOver renames a backup of the database at path over it, as
// an operator restoring one under the running server does.
func renameBackupOver(t *testing.T, path string) {
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
}
