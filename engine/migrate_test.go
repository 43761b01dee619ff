package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// fixtureSchema is the working-memory schema testdata/schema-v1 was written
// with.
const fixtureSchema = `{"type":"object","properties":{"name":{"type":"string"},"city":{"type":"string"}},"additionalProperties":false}`

// openSchemaV1 opens a copy of testdata/schema-v1/mnemo.db, a data
// directory written by schema version 1 (before tenant binding): threads
// alice-chat (alice) and bob-chat (bob); run turn-1 of alice-chat with a
// memctx record and the tool call call_0 (city Lisbon); run loose-run of
// bob-chat with call_1 (city Oslo) and no memctx record; a state planted on
// thread ghost-chat (which does not exist) by run-m/call_9 for "mallory";
// and the resource state of bob written by `mnemo wm set`.
func openSchemaV1(t *testing.T) *engine.Engine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "schema-v1", engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, engine.DatabaseFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Schema: json.RawMessage(fixtureSchema)}})
}

// TestOpenSchemaV1 is SQLite only: it opens a database of the SQLite schema's first version.
func TestOpenSchemaV1(t *testing.T) {
	ctx := context.Background()
	e := openSchemaV1(t)
	var v int
	if err := engine.DBOf(e).QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil || v != store.SchemaVersion {
		t.Fatalf("user_version=%d (%v), want %d", v, err, store.SchemaVersion)
	}
	t.Run("WorkingMemoryOwners", func(t *testing.T) {
		for _, c := range []struct{ key, owner string }{
			{"thread:alice-chat", "alice"}, {"thread:bob-chat", "bob"}, {"resource:bob", "bob"},
		} {
			if n := countRows(t, e, `SELECT 1 FROM working_memory WHERE scope = ? AND resource_id = ?`, c.key, c.owner); n != 1 {
				t.Errorf("%s: not bound to %s", c.key, c.owner)
			}
			if n := countRows(t, e, `SELECT 1 FROM working_memory_history WHERE scope = ? AND resource_id <> ?`, c.key, c.owner); n != 0 {
				t.Errorf("%s: %d history rows not bound to %s", c.key, n, c.owner)
			}
		}
		if n := countRows(t, e, `SELECT 1 FROM working_memory WHERE scope = 'thread:ghost-chat' UNION ALL SELECT 1 FROM working_memory_history WHERE content LIKE '%MALLORYCITY%'`); n != 0 {
			t.Fatalf("the state planted on a thread that does not exist survived the migration (%d rows)", n)
		}
	})
	// Migration 6: threads were last active at their newest message, and
	// their byte counters match their messages (Check verifies the bytes
	// when the test ends).
	t.Run("Lifecycle", func(t *testing.T) {
		ts, err := e.ListThreads(ctx, "")
		if err != nil || len(ts) == 0 {
			t.Fatalf("threads %+v (%v)", ts, err)
		}
		for _, th := range ts {
			if !th.LastActiveAt.Equal(th.UpdatedAt) || th.Bytes <= 0 || th.IdleTTL != 0 {
				t.Errorf("thread %s: last active %v (updated %v), %d bytes, idle ttl %v", th.ID, th.LastActiveAt, th.UpdatedAt, th.Bytes, th.IdleTTL)
			}
		}
	})
	t.Run("LoadContext", func(t *testing.T) {
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "turn-2", ThreadID: "alice-chat", ResourceID: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(wmSection(t, c), "Lisbon") {
			t.Fatalf("migrated state not rendered:\n%s", c.System)
		}
	})
	t.Run("Runs", func(t *testing.T) {
		for _, c := range []struct{ run, thread, resource string }{
			{"turn-1", "alice-chat", "alice"}, {"loose-run", "bob-chat", "bob"},
		} {
			if n := countRows(t, e, `SELECT 1 FROM runs WHERE id = ? AND thread_id = ? AND resource_id = ?`, c.run, c.thread, c.resource); n != 1 {
				t.Errorf("run %s not claimed by %s/%s", c.run, c.resource, c.thread)
			}
		}
		for _, k := range []journal.ToolKey{
			{RunID: "turn-1", ThreadID: "alice-chat", ResourceID: "alice", CallID: "call_0"},
			{RunID: "loose-run", ThreadID: "bob-chat", ResourceID: "bob", CallID: "call_1"},
		} {
			if n := countRows(t, e, `SELECT 1 FROM journal WHERE scope = 'tool' AND key = ? AND thread_id = ? AND resource_id = ?`, k.String(), k.ThreadID, k.ResourceID); n != 1 {
				t.Errorf("tool application %s not migrated", k)
			}
		}
		// run-m/call_9 wrote the planted state of a thread that does not
		// exist: no owner, dropped.
		if n := countRows(t, e, `SELECT 1 FROM journal WHERE scope = 'tool'`); n != 2 {
			t.Errorf("%d tool applications after the migration, want 2", n)
		}
	})
	t.Run("ReplayToolCall", func(t *testing.T) {
		msg, err := e.HandleToolCall(ctx, "turn-1", "alice-chat", "alice", openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{"city":"Lisbon"}`))
		if err != nil || msg.Content != `{"ok":true,"version":1}` {
			t.Fatalf("replayed call: %q, %v; want the recorded result", msg.Content, err)
		}
		if _, err := e.HandleToolCall(ctx, "turn-1", "bob-chat", "bob", openaitest.ToolCall("call_0", tools.UpdateWorkingMemoryName, `{}`)); !errors.Is(err, journal.ErrRunOwned) {
			t.Fatalf("another thread's migrated run: %v, want ErrRunOwned", err)
		}
		if n := countRows(t, e, `SELECT 1 FROM working_memory_history WHERE scope = 'thread:alice-chat'`); n != 1 {
			t.Fatalf("%d versions: the replayed call was applied again", n)
		}
		if _, err := e.HandleToolCall(ctx, "turn-3", "alice-chat", "", openaitest.ToolCall("call_1", tools.UpdateWorkingMemoryName, `{"name":"Alice"}`)); err != nil {
			t.Fatal(err)
		}
		mem, _ := e.WorkingMemory()
		st, err := mem.Get(ctx, working.ThreadKey("alice-chat"))
		if err != nil || st.Version != 2 || st.ResourceID != "alice" || !strings.Contains(st.Content, "Lisbon") {
			t.Fatalf("state after a new call: %+v, %v", st, err)
		}
	})
}
