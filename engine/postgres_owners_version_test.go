package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/observe"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// TestPostgresEveryOwnerChecksVersion: once a newer build has migrated the
// schema (its schema_version row, committed by another session), every
// owner's write of an engine opened before is refused with
// ErrSchemaMigrated and writes nothing: the journal (a run's claim, a
// LoadContext's memctx record, a dispatch, retention), working memory, the
// observer, and the lifecycle's expiry, not only the engine's appends.
// Before, only the engine's own transactions read schema_version: the
// others wrote.
func TestPostgresEveryOwnerChecksVersion(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	srv := openaitest.New(t, openaitest.WithChat(func(openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openaitest.Text(`{"observations": []}`).Response, nil
	}))
	e, err := engine.Open(ctx, engine.Config{Postgres: dsn, Embedder: recall.HashEmbedder{}, RecentN: 2,
		WorkingMemory: &working.Config{Mode: working.ModeTemplate, Template: "# Notes\n"},
		Observe:       &engine.ObserveConfig{Model: newObserverModel(t, srv)}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	appendTurns(t, e, "t", 8)
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-0", ThreadID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true}); err != nil {
		t.Fatal(err)
	}
	if pgRows(t, dsn, "observations") == 0 {
		t.Fatal("no observation stored before the migration")
	}
	// The observer's answers stay in the journal: without its rows, the
	// observer stores them again from there, writing only observations.
	pgtest.Exec(t, dsn, `DELETE FROM observations`)
	wm, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	key, err := wm.Key("t", "r")
	if err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, dsn, `INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)`, pgstore.SchemaVersion+1)

	call := []engine.ToolCall{{ID: "call_1", Name: "lookup", Arguments: json.RawMessage(`{}`)}}
	writes := []struct {
		name   string
		tables []string
		write  func() error
	}{
		{"Append", []string{"messages", "threads"}, func() error {
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", "hello")}})
			return err
		}},
		{"JournalClaimRun", []string{"runs"}, func() error { return e.Journal().ClaimRun(ctx, "run-1", "t", "r") }},
		{"LoadContextMemCtx", []string{"runs", "journal"}, func() error {
			_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-0", ThreadID: "t", ResourceID: "r", ReplaceRun: true})
			return err
		}},
		{"BeginDispatch", []string{"dispatches", "messages"}, func() error {
			_, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-0", ThreadID: "t", ResourceID: "r",
				Message: engine.Message{Role: engine.RoleAssistant, ToolCalls: call}})
			return err
		}},
		{"JournalRetention", []string{"journal"}, func() error {
			_, err := e.Journal().PruneAged(ctx, time.Now().Add(time.Hour).UnixMilli(), "")
			return err
		}},
		{"WorkingMemory", []string{"working_memory", "working_memory_history"}, func() error {
			_, err := wm.Set(ctx, key, "# Notes\nlikes trains\n", working.Origin{ResourceID: "r"})
			return err
		}},
		{"Observer", []string{"observations"}, func() error {
			_, err := e.Observe(ctx, "t", observe.Options{Force: true, NoReflect: true})
			return err
		}},
		{"Expire", []string{"threads", "messages", "runs"}, func() error {
			_, err := e.Expire(ctx, engine.ExpireRequest{Idle: time.Nanosecond})
			return err
		}},
		{"SetIdleTTL", []string{"threads"}, func() error { return e.SetIdleTTL(ctx, "t", "r", time.Hour) }},
	}
	want := fmt.Sprintf("(database version %d, this build %d)", pgstore.SchemaVersion+1, pgstore.SchemaVersion)
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			before := snapshot(t, dsn, w.tables)
			err := w.write()
			t.Logf("%s: %v", w.name, err)
			if !errors.Is(err, engine.ErrSchemaMigrated) || !strings.Contains(err.Error(), want) {
				t.Fatalf("%s after the migration: %v, want ErrSchemaMigrated saying %q", w.name, err, want)
			}
			if after := snapshot(t, dsn, w.tables); after != before {
				t.Fatalf("%s after the migration wrote: %s before, %s after", w.name, before, after)
			}
		})
	}
}

// snapshot is the row count and content digest of each of tables in
// dsn's schema, as one string to compare.
func snapshot(t *testing.T, dsn string, tables []string) string {
	t.Helper()
	s := ""
	for _, table := range tables {
		s += fmt.Sprintf("%s=%d/%s ", table, pgRows(t, dsn, table), pgDigest(t, dsn, table))
	}
	return s
}

// pgDigest is an md5 of table's rows (as text, sorted) in dsn's schema,
// "" for none.
func pgDigest(t *testing.T, dsn, table string) string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var d string
	q := `SELECT coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '') FROM ` + table + ` x`
	if err := conn.QueryRow(context.Background(), q).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return d
}
