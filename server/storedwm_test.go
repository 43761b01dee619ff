package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestStoredWorkingMemoryProblem: a context request to a server whose
// stored working-memory configuration does not build
// (engine.ErrStoredWorkingMemory: a newer build's mode) answers 503
// working-memory-unavailable with a detail saying how to replace it, and
// the MCP tools' Describe the same. Before, it was a 500 "internal" with
// "the request failed; the server log has the cause". /healthz answers
// 200 with status "degraded" and the same detail as its reason.
func TestStoredWorkingMemoryProblem(t *testing.T) {
	dir := t.TempDir()
	e := enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Template: "# Notes\n"}})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE working_config SET config = '{"mode":"patch","scope":"thread"}' WHERE id = 1`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarnessOn(t, false, server.Config{}, engine.Config{Dir: dir})
	h.seed("t1", "r1", "", "hello")
	r := h.do("POST", "/v1/context", "", map[string]any{"threadId": "t1"})
	p := r.problem(t)
	if r.status != 503 || !strings.HasSuffix(p.Type, "/working-memory-unavailable") || p.Detail != server.StoredWorkingMemoryDetail {
		t.Fatalf("status %d, problem %+v: want 503 working-memory-unavailable", r.status, p)
	}
	_, lerr := h.e.LoadContext(context.Background(), engine.LoadRequest{RunID: "r1", ThreadID: "t1"})
	if d := server.Describe(lerr); d.Status != 503 || d.Detail != server.StoredWorkingMemoryDetail {
		t.Fatalf("Describe(%v) = %+v, want the 503 working-memory-unavailable", lerr, d)
	}
	// /healthz stays 200 (the rest of the API answers) but says what
	// does not work; it said {"status":"ok"} (fix2's leftover).
	r = h.do("GET", "/healthz", "", nil)
	var health server.Health
	if err := json.Unmarshal(r.body, &health); r.status != 200 || err != nil || health.Status != "degraded" || health.Reason != server.StoredWorkingMemoryDetail {
		t.Errorf("/healthz: %d %s (%v); want 200, status degraded with the reason", r.status, r.body, err)
	}
}
