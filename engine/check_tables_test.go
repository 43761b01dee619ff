package engine_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// TestCheckDerivedTables: Check compares the tables the schema derives by
// triggers with their sources, and Reindex rebuilds them: a link of
// journal_tool_obs or a call of message_calls that no row of the journal
// or the messages makes is found by the quick check (a call of a message
// not stored) and by --full (any row extra or missing, each table named);
// after Reindex the full check passes. Before, neither check looked at
// them: an erasure would have kept a recorded result whose link was lost.
func TestCheckDerivedTables(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		cfg := be.NewStore(t).Config(engine.Config{})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		msgs := []engine.Message{
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{}`)}}},
			{Role: "tool", ToolCallID: "call-1", Content: "found"},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		e.Close()
		output := `'{"ok":true,"observations":[{"id":"OBS-1"}]}'`
		if cfg.Postgres != "" {
			output += "::bytea"
		}
		tamper(t, cfg, `INSERT INTO journal (scope, key, resource_id, output, created_at) VALUES ('tool', 'k1', 'r', `+output+`, 0)`)
		check := func(full bool) error {
			t.Helper()
			e, err := engine.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			return e.CheckWith(ctx, engine.CheckOptions{Full: full})
		}
		if err := check(true); err != nil {
			t.Fatalf("before the tables were changed: %v", err)
		}
		tamper(t, cfg, `DELETE FROM journal_tool_obs`, `INSERT INTO journal_tool_obs (obs_id, scope, key) VALUES ('GHOST', 'tool', 'k1')`,
			`DELETE FROM message_calls`, `INSERT INTO message_calls (thread_id, call_id, seq) VALUES ('t', 'call-9', 9)`)
		for _, c := range []struct {
			full      bool
			want, not []string
		}{
			{false, []string{"message_calls: 1 call of no row of the messages", "mnemo reindex rebuilds it"}, []string{"journal_tool_obs"}},
			{true, []string{"journal_tool_obs: 1 link missing and 1 link extra against the tool results recorded", "message_calls: 1 call missing and 1 call extra"}, nil},
		} {
			err := check(c.full)
			var ce *engine.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("full=%v after the tables were changed: %v, want a *CheckError", c.full, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("full=%v: %v; want %q in it", c.full, err, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("full=%v: %v; want no %q in it", c.full, err, w)
				}
			}
		}
		e, err = engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Reindex(ctx, false); err != nil {
			t.Fatal(err)
		}
		e.Close()
		if err := check(true); err != nil {
			t.Fatalf("after Reindex: %v", err)
		}
	})
}

// tamper runs stmts on cfg's store outside the engine (closed).
func tamper(t *testing.T, cfg engine.Config, stmts ...string) {
	t.Helper()
	if cfg.Postgres != "" {
		for _, s := range stmts {
			pgtest.Exec(t, cfg.Postgres, s)
		}
		return
	}
	db, err := sql.Open("sqlite", filepath.Join(cfg.Dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestCheckCallsNotJSON: an assistant message whose tool_calls is not JSON
// (another program's row, which the triggers take as no call) is reported
// by the full check as a garbled message, on Postgres as on SQLite, and
// Reindex reads it as no call (TestReadToolCallsNotJSON; it stopped at its
// decoding), the check naming it after as before. Before (rev65), Postgres's full
// check and Reindex cast the column to jsonb unguarded in message_calls'
// comparison and rebuild, and failed there on the SQL error ('invalid
// input syntax for type json'): the check reported nothing it found.
func TestCheckCallsNotJSON(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		cfg := be.NewStore(t).Config(engine.Config{})
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		msgs := []engine.Message{
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{}`)}}},
			{Role: "tool", ToolCallID: "call-1", Content: "found"},
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call-2", Name: "lookup", Arguments: json.RawMessage(`{}`)}}},
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		e.Close()
		tamper(t, cfg, `UPDATE messages SET tool_calls = 'not JSON {' WHERE tool_calls LIKE '%call-2%'`)
		e, err = engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		err = e.CheckWith(ctx, engine.CheckOptions{Full: true})
		var ce *engine.CheckError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "message 3 of thread t: its metadata or tool calls are not JSON (garbled)") {
			t.Errorf("full check with a tool_calls that is not JSON: %v, want a *CheckError naming message 3 garbled", err)
		}
		if err := e.Reindex(ctx, false); err != nil {
			t.Errorf("Reindex with a tool_calls that is not JSON: %v, want it read as no call", err)
		}
		if err := e.CheckWith(ctx, engine.CheckOptions{Full: true}); !strings.Contains(fmt.Sprint(err), "message 3 of thread t: its metadata or tool calls are not JSON (garbled)") {
			t.Errorf("full check after Reindex: %v, want message 3 still named garbled", err)
		}
	})
}
