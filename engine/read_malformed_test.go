package engine_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestReadMetadataNotJSON: a message whose stored metadata is not a JSON
// object (a row written outside mnemo) fails no read of its thread, on
// SQLite and Postgres: Messages, MessagesPage, LoadContext, Replay,
// SearchMessages and SearchPreviews answer, the message with no Metadata
// and its stored text in Malformed.Metadata; the full check still names
// the one that is not JSON garbled. Each read failed with "decode
// metadata of <id>".
func TestReadMetadataNotJSON(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		cfg := be.NewStore(t).Config(engine.Config{})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		msgs := []engine.Message{
			{Role: "user", Content: "the weather in Porto?", Metadata: map[string]any{"k": "one"}},
			{Role: "assistant", Content: "sunny in Porto", Metadata: map[string]any{"k": "two"}},
			{Role: "user", Content: "and Lisbon?", Metadata: map[string]any{"k": "three"}},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		e.Close()
		tamper(t, cfg, `UPDATE messages SET metadata = 'not JSON {' WHERE seq = 2`, `UPDATE messages SET metadata = '[1,2]' WHERE seq = 3`)
		e, err = engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		got, err := e.Messages(ctx, "t", 1, 0)
		if err != nil {
			t.Fatalf("Messages: %v", err)
		}
		if len(got) != 3 || got[0].Metadata["k"] != "one" || got[0].Malformed != nil {
			t.Fatalf("Messages = %+v, want 3, the first's metadata as stored", got)
		}
		for i, want := range map[int]string{1: "not JSON {", 2: "[1,2]"} {
			if m := got[i]; m.Metadata != nil || m.Malformed == nil || m.Malformed.Metadata != want || m.Malformed.ToolCalls != "" {
				t.Errorf("message %d: metadata %v, malformed %+v; want none and %q", i+1, m.Metadata, m.Malformed, want)
			}
		}
		if page, err := e.MessagesPage(ctx, "t", engine.PageRequest{}); err != nil || len(page.Messages) != 3 {
			t.Errorf("MessagesPage: %+v, %v; want 3 messages", page, err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-1", ThreadID: "t", ResourceID: "r", Query: "Porto"})
		if err != nil || len(c.Messages) == 0 {
			t.Fatalf("LoadContext: %v, %v", c, err)
		}
		if _, err := e.Replay(ctx, "run-1", engine.ReplayOptions{}); err != nil {
			t.Errorf("Replay: %v", err)
		}
		req := engine.SearchRequest{ResourceID: "r", Query: "Porto"}
		if res, err := e.SearchMessages(ctx, req); err != nil || len(res.Hits) == 0 {
			t.Errorf("SearchMessages: %+v, %v; want hits", res, err)
		}
		if res, err := e.SearchPreviews(ctx, req); err != nil || len(res.Hits) == 0 {
			t.Errorf("SearchPreviews: %+v, %v; want hits", res, err)
		}
		if err := e.Reindex(ctx, false); err != nil {
			t.Errorf("Reindex: %v", err)
		}
		if err := e.CheckWith(ctx, engine.CheckOptions{Full: true}); !strings.Contains(fmt.Sprint(err), "message 2 of thread t: its metadata or tool calls are not JSON (garbled)") {
			t.Errorf("full check: %v, want message 2 named garbled", err)
		}
	})
}

// TestReadCallsAgreeWithMessageCalls: for each shape of a stored
// tool_calls (written outside mnemo), the calls a read gives are the
// calls message_calls' triggers index, on SQLite and Postgres, and
// Malformed.ToolCalls holds the stored text of every shape but an array
// of well-formed calls. A mixed array read as no call while its
// well-formed elements were indexed (the answering tool message paired
// with a call no read showed). A call naming "id", "name" or "arguments"
// in another case, or twice, is malformed too: it read whole, with the
// id encoding/json matched in any case, which the triggers did not index
// (rev71); but for an "id" named twice on SQLite (its trigger indexes the
// first, Postgres's the last, as a read does).
func TestReadCallsAgreeWithMessageCalls(t *testing.T) {
	shapes := []struct {
		stored string
		whole  bool
	}{
		{`[]`, true},
		{`null`, true},
		{`[{"id":"a0","name":"f","arguments":{"x":1}}]`, true},
		{`[{"id":7}]`, false},
		{`[{"id":"a1","name":"f","arguments":{}},{"id":7},"x",null,{"name":"g"},[1],{"id":"b1","name":5}]`, false},
		{`[{"id":"a2"}]`, false},
		{`not JSON {`, false},
		{`{"id":"a3","name":"f"}`, false},
		{`"[]"`, false},
		// encoding/json matches names in any case and keeps the last
		// of two; the triggers match exactly (rev71).
		{`[{"ID":"a4","name":"f"}]`, false},
		{`[{"id":"a5","Id":"b5","name":"f"}]`, false},
		{`[{"id":"a6","name":"f","NAME":"g"}]`, false},
		{`[{"id":"a7","name":"f","name":"g"}]`, false},
		{`[{"id":"a8","id":"b8","name":"f"}]`, false}, // SQLite's trigger indexes a8, Postgres's b8, a read b8
	}
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		cfg := be.NewStore(t).Config(engine.Config{})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var stmts []string
		for i, s := range shapes {
			th := fmt.Sprintf("t%d", i)
			msgs := []engine.Message{
				{Role: "user", Content: "look it up"},
				{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "orig-" + th, Name: "lookup", Arguments: json.RawMessage(`{}`)}}},
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th, ResourceID: "r", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			stmts = append(stmts, fmt.Sprintf(`UPDATE messages SET tool_calls = '%s' WHERE thread_id = '%s' AND seq = 2`, s.stored, th))
		}
		e.Close()
		tamper(t, cfg, stmts...)
		db := openStoreDB(t, cfg)
		e, err = engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		for i, s := range shapes {
			th := fmt.Sprintf("t%d", i)
			got, err := e.Messages(ctx, th, 2, 2)
			if err != nil || len(got) != 1 {
				t.Fatalf("%s: Messages: %v, %v", s.stored, got, err)
			}
			var read []string
			for _, c := range got[0].ToolCalls {
				read = append(read, c.ID)
			}
			indexed := callIDs(t, db, th)
			slices.Sort(read)
			if !slices.Equal(read, indexed) && !(be.Name == "sqlite" && strings.Contains(s.stored, `"id":"a8","id"`)) {
				t.Errorf("%s: a read gives calls %q, message_calls holds %q", s.stored, read, indexed)
			}
			if m := got[0].Malformed; s.whole != (m == nil) || m != nil && m.ToolCalls != s.stored {
				t.Errorf("%s: Malformed %+v, want the stored text: %v", s.stored, m, !s.whole)
			}
		}
	})
}

// openStoreDB opens cfg's store outside the engine, for reading.
func openStoreDB(t *testing.T, cfg engine.Config) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", filepath.Join(cfg.Dir, engine.DatabaseFile)
	if cfg.Postgres != "" {
		driver, dsn = "pgx", cfg.Postgres
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// callIDs is the call ids message_calls holds for thread, in byte order.
func callIDs(t *testing.T, db *sql.DB, thread string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT call_id FROM message_calls WHERE thread_id = '` + thread + `'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}
