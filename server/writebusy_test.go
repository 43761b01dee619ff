package server_test

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
)

// TestWriteBusy: a write that waited the busy timeout (10 s) at the write
// gate for the server's other writers (engine.ErrWriteBusy; here a write
// transaction another handle of the process holds open) answers 503
// database-busy with Retry-After, a transient overload a client retries,
// not 500 internal as if mnemo had failed; nothing of it is stored, and
// the same append succeeds once the writer ahead is done. Takes 10 s.
func TestWriteBusy(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	body := map[string]any{"resourceId": "r1", "messages": []map[string]any{{"id": "m1", "role": "user", "content": "the night train to Porto"}}}
	release := enginetest.HoldWrites(t, h.e)
	r := h.do("POST", "/v1/threads/t1/messages", "", body)
	release()
	if r.status != 503 {
		t.Fatalf("append behind a held write lock: %d %s, want 503", r.status, r.body)
	}
	p := r.problem(t)
	if p.Type != server.ProblemTypeBase+"database-busy" || p.Title != "Database busy" || p.Detail != server.WriteBusyDetail {
		t.Errorf("problem %+v, want database-busy, Database busy, WriteBusyDetail", p)
	}
	if got := r.header.Get("Retry-After"); got != "5" {
		t.Errorf("Retry-After %q, want 5", got)
	}
	if r := h.do("GET", "/v1/threads/t1/messages", "", nil); r.status != 404 {
		t.Errorf("the refused append's thread: %d %s, want 404 (nothing stored)", r.status, r.body)
	}
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", "", body, 200)
}

// TestWriteBusyOtherProcess: ba303622. While a connection outside the
// server's write gate (database/sql with modernc's driver on mnemo.db, as
// a sqlite3 shell of another process) holds BEGIN IMMEDIATE, an append
// waits SQLite's busy timeout (10 s) and answers 503 database-busy with
// Retry-After, not 500 internal; nothing of it is stored, and it succeeds
// once the lock is released. Takes 10 s.
func TestWriteBusyOtherProcess(t *testing.T) {
	h := newHarness(t, false, server.Config{})
	body := map[string]any{"resourceId": "r1", "messages": []map[string]any{{"id": "m1", "role": "user", "content": "the night train to Porto"}}}
	ctx := context.Background()
	path := filepath.Join(h.e.Dir(), engine.DatabaseFile)
	other, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	r := h.do("POST", "/v1/threads/t1/messages", "", body)
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if r.status != 503 {
		t.Fatalf("append behind another connection's BEGIN IMMEDIATE: %d %s, want 503", r.status, r.body)
	}
	if p := r.problem(t); p.Type != server.ProblemTypeBase+"database-busy" || p.Detail != server.WriteBusyDetail {
		t.Errorf("problem %+v, want database-busy, WriteBusyDetail", p)
	}
	if got := r.header.Get("Retry-After"); got != "5" {
		t.Errorf("Retry-After %q, want 5", got)
	}
	if r := h.do("GET", "/v1/threads/t1/messages", "", nil); r.status != 404 {
		t.Errorf("the refused append's thread: %d %s, want 404 (nothing stored)", r.status, r.body)
	}
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", "", body, 200)
}

// TestWriteBusyDetail: gate51. The database-busy detail names the wait
// the write made, engine.WriteBusyTimeout ("10s"; it hard-coded "10 s"),
// names another process's lock as a cause too, and claims no more than
// that the write which waited was not made: it said "nothing of it
// stored", untrue of a request that wrote before that write (a context's
// observation before its record).
func TestWriteBusyDetail(t *testing.T) {
	for _, c := range []struct {
		what, text string
		want       bool
	}{
		{"names the busy timeout", "waited " + engine.WriteBusyTimeout.String() + " for other writes", true},
		{"names another process", "another process", true},
		{"says the write was not made", "was not made", true},
		{"says a request's earlier writes stay", "keeps what it wrote before that write", true},
		{"claims nothing of the request stored", "nothing of it stored", false},
		{"says to try again", "try again", true},
	} {
		if got := strings.Contains(server.WriteBusyDetail, c.text); got != c.want {
			t.Errorf("%s: %q holds %q: %v, want %v", c.what, server.WriteBusyDetail, c.text, got, c.want)
		}
	}
}
