package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestDamagedRefusesNewData: once a read met the damaged page, every
// request that would store new data on a sound thread is refused with the
// lasting 503 database-damaged, nothing stored: a context (its run's memctx
// record would go into the damaged file, which a restored backup drops)
// and a working-memory write, as an append is. Before, both answered 200:
// the context with a record in the damaged file, the state stored there.
func TestDamagedRefusesNewData(t *testing.T) {
	dir := damagedDir(t)
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{},
		WorkingMemory: &working.Config{Template: "# User\n- Name:\n", Scope: working.ScopeThread}})
	if err != nil {
		t.Fatalf("open of the damaged directory: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	h := newHarnessFor(t, true, server.Config{}, e)

	// Before the damage is met, bob's context and state are taken.
	h.ok("POST", "/v1/context", "/v1/context", bobToken, map[string]any{"threadId": "dmg-b", "runId": "run-before"}, 200)
	if r := h.do("GET", "/v1/threads/dmg-a/messages", aliceToken, nil); r.status != http.StatusServiceUnavailable {
		t.Fatalf("read of the damaged page: status %d, want 503; body %s", r.status, r.body)
	}

	refused := func(r response, what string) {
		t.Helper()
		if r.status != http.StatusServiceUnavailable {
			t.Fatalf("%s after the damage: status %d, want 503; body %s", what, r.status, r.body)
		}
		if p := r.problem(t); p.Type != server.ProblemTypeBase+"database-damaged" || p.Detail != server.DatabaseDamagedDetail {
			t.Fatalf("%s after the damage: problem %+v, want database-damaged", what, p)
		}
		if ra := r.header.Get("Retry-After"); ra != "" {
			t.Errorf("%s: Retry-After %q on a damage that does not heal", what, ra)
		}
	}
	// The detail's recipe is the CLI's: a backup restored beside the
	// damaged server's -wal reads as damaged, and its indexes need a
	// reindex (readme65 F3: it named only restore and check --full).
	if p := h.do("GET", "/healthz", "", nil).problem(t); !containsAll(p.Detail, "delete", "mnemo.db-wal", "mnemo.db-shm",
		"mnemo --dir DIR reindex", "mnemo --dir DIR check --full", "mnemo --dir DIR salvage") {
		t.Errorf("/healthz detail %q lacks a step of the CLI's advice", p.Detail)
	}
	refused(h.do("POST", "/v1/context", bobToken, map[string]any{"threadId": "dmg-b", "runId": "run-after"}), "context")
	refused(h.do("PUT", "/v1/threads/dmg-b/working-memory", bobToken, map[string]any{"content": "# User\n- Name: Bob\n"}), "working-memory write")

	// Nothing of them stored; what was recorded before still reads.
	if r := h.do("GET", "/v1/runs/run-after/memctx", bobToken, nil); r.status != http.StatusNotFound {
		t.Errorf("the refused context's record: status %d, want 404; body %s", r.status, r.body)
	}
	h.ok("GET", "/v1/runs/{run}/memctx", "/v1/runs/run-before/memctx", bobToken, nil, 200)
	var wm struct {
		Content string `json:"content"`
	}
	h.ok("GET", "/v1/threads/{thread}/working-memory", "/v1/threads/dmg-b/working-memory", bobToken, nil, 200).decode(t, &wm)
	if wm.Content != "# User\n- Name:\n" {
		t.Errorf("working memory after the refused write: %q, want the template", wm.Content)
	}
	// Erasure still runs: it removes data.
	h.ok("DELETE", "/v1/threads/{thread}", "/v1/threads/dmg-b", opsToken, nil, 200)
}

// TestDamageKnownToNextServer: a server started on a directory whose
// damage an earlier process met (its record, mnemo.db.damage-seen, beside
// mnemo.db) answers /healthz and an append on a sound thread with the
// lasting 503 database-damaged from its first request, while a read of a
// sound thread answers. Before, the refusal was the process's alone: the
// next server took the append into the damaged file and was healthy until
// a read of its own met the page.
func TestDamageKnownToNextServer(t *testing.T) {
	ctx := context.Background()
	dir := damagedDir(t)
	first, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Messages(ctx, "dmg-a", 0, 0); !engine.IsDatabaseCorrupt(err) {
		t.Fatalf("read of the damaged page: %v, want ErrDatabaseCorrupt", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatalf("open of the damaged directory: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	h := newHarnessFor(t, true, server.Config{}, e)
	for _, r := range []struct {
		what string
		r    response
	}{
		{"healthz", h.do("GET", "/healthz", "", nil)},
		{"append", h.do("POST", "/v1/threads/dmg-b/messages", bobToken, map[string]any{"resourceId": "res-bob", "messages": []map[string]any{{"role": "user", "content": "one more"}}})},
	} {
		if r.r.status != http.StatusServiceUnavailable {
			t.Errorf("%s in the next server: status %d, want 503; body %s", r.what, r.r.status, r.r.body)
			continue
		}
		if p := r.r.problem(t); p.Type != server.ProblemTypeBase+"database-damaged" {
			t.Errorf("%s in the next server: problem %+v, want database-damaged", r.what, p)
		}
	}
	h.ok("GET", "/v1/threads/{thread}/messages", "/v1/threads/dmg-b/messages", bobToken, nil, 200)
}

// containsAll reports whether s contains each of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
