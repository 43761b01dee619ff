package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// TestWorkingMemoryStoredConfigBroken: a working-memory configuration
// stored by an earlier Open that does not build here (a newer build's mode,
// an unknown scope, a schema this build cannot compile, a damaged row) is
// reported when the engine opens, as a warning naming it, and at every use
// as ErrStoredWorkingMemory beside working's own error; the messages stay
// readable, and an Open with Config.WorkingMemory replaces it. Before, Open
// said nothing and the first use failed with working's error alone
// ("engine: working memory: working: invalid config: mode \"patch\" …"),
// which did not say the configuration was the stored one.
//
// SQLite only: the row is damaged with SQL, and reading it back
// (working.LoadConfig, no placeholders) is the same on Postgres.
func TestWorkingMemoryStoredConfigBroken(t *testing.T) {
	for _, tc := range []struct {
		name, stored, names string
		want                error
	}{
		{"newer mode", `{"mode":"patch","scope":"thread"}`, `mode "patch"`, working.ErrInvalidConfig},
		{"unknown scope", `{"mode":"template","template":"# T\n","scope":"tenant"}`, `scope "tenant"`, working.ErrInvalidConfig},
		{"schema", `{"mode":"schema","schema":{"type":"frobnicate"},"scope":"thread"}`, `mode "schema"`, working.ErrInvalidSchema},
		{"not json", `{"mode":`, "stored configuration", working.ErrInvalidConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			e := enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Template: "# Notes\n"}})
			appendUser(t, e, "t1", "u1", "I moved to Porto")
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			storeWorkingConfigRow(t, dir, tc.stored)

			var log enginetest.SyncBuffer
			e, err := engine.Open(ctx, engine.Config{Dir: dir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatalf("Open with a stored configuration that does not build: %v, want it opened", err)
			}
			defer e.Close()
			if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), engine.ErrStoredWorkingMemory.Error()) {
				t.Errorf("Open logged no warning of the stored configuration:\n%s", log.String())
			}
			checkStoredBroken(t, "WorkingMemory", func() error { _, err := e.WorkingMemory(); return err }, tc.names, tc.want)
			checkStoredBroken(t, "LoadContext", func() error {
				_, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "t1"})
				return err
			}, tc.names, tc.want)
			checkStoredBroken(t, "HandleToolCall", func() error {
				_, err := e.HandleToolCall(ctx, "r2", "t1", "", openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"content":"x"}`))
				return err
			}, tc.names, tc.want)

			// What does not render working memory works.
			if ms, err := e.Messages(ctx, "t1", 0, 0); err != nil || len(ms) != 1 {
				t.Errorf("Messages: %d, %v", len(ms), err)
			}
			if res, err := e.Search(ctx, engine.SearchRequest{ResourceID: "u1", Query: "Porto"}); err != nil || len(res.Hits) == 0 {
				t.Errorf("Search: %v", err)
			}
			if err := e.Check(ctx); err != nil {
				t.Errorf("Check: %v", err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}

			// An Open with a configuration replaces the stored one.
			enginetest.MustOpen(t, engine.Config{Dir: dir, WorkingMemory: &working.Config{Template: "# Notes\n"}}).Close()
			e = enginetest.MustOpen(t, engine.Config{Dir: dir})
			if m, err := e.WorkingMemory(); err != nil || m.Mode() != working.ModeTemplate {
				t.Fatalf("after an open that replaced it: %v", err)
			}
		})
	}
}

// checkStoredBroken fails t unless call's error is
// ErrStoredWorkingMemory and want, naming names and the remedy.
func checkStoredBroken(t *testing.T, what string, call func() error, names string, want error) {
	t.Helper()
	err := call()
	if !errors.Is(err, engine.ErrStoredWorkingMemory) || !errors.Is(err, want) {
		t.Errorf("%s: %v, want ErrStoredWorkingMemory and %v", what, err, want)
		return
	}
	if msg := err.Error(); !strings.Contains(msg, names) || !strings.Contains(msg, "Config.WorkingMemory") {
		t.Errorf("%s: %q names neither %s nor how to replace it", what, msg, names)
	}
}

// storeWorkingConfigRow replaces the working-memory configuration stored
// in dir's database with raw, as another build (or damage) would.
func storeWorkingConfigRow(t *testing.T, dir, raw string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, engine.DatabaseFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(`UPDATE working_config SET config = ? WHERE id = 1`, raw)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("working_config rows updated: %d, %v", n, err)
	}
}
