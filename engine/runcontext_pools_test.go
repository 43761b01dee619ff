package engine_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/openaitest"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// TestRunOfErasedTurnAcrossPools is fix1's Postgres leftover: two engines
// (two pools, as two processes) on one schema. Run r1 of engine a, whose
// context held "I live in Lyon.", writes its working memory; its write
// stops right after its in-flight check passed, inside its transaction,
// and engine b erases the turn then. Before, nothing ordered the two
// (READ COMMITTED, b's erasure takes no fence of a's): the erasure read
// the versions without a's, marked r1's record, committed, and a's
// version then committed and stayed. Now the erasure waits for the lock
// a's check holds (journal.LockRunContexts), so it reads a's version once
// a commits and invalidates it: Lyon is in no state.
func TestRunOfErasedTurnAcrossPools(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		if be.Name != enginetest.Postgres.Name {
			t.Skip("two pools on one schema need Postgres; SQLite runs the write and the erasure one at a time (one writer), TestRunOfErasedTurn")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cfg := be.NewStore(t).Config(engine.Config{WorkingMemory: &working.Config{Template: "# P\n", Scope: working.ScopeResource}})
		a, b := openEngine(t, cfg), openEngine(t, cfg)
		ar, err := a.Append(ctx, engine.AppendRequest{ThreadID: "w1", ResourceID: "ana", Messages: []engine.Message{user("", "I live in Lyon.")}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "w1", ResourceID: "ana", RecentN: 5}); err != nil {
			t.Fatal(err)
		}
		checked, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		engine.SetAfterRunCheck(a, func() { once.Do(func() { close(checked); <-release }) })
		wrote := make(chan error, 1)
		go func() {
			call := openaitest.ToolCall("c1", tools.UpdateWorkingMemoryName, `{"memory":"# P\n- City: Lyon\n"}`)
			_, err := a.HandleToolCall(ctx, "r1", "w1", "ana", call)
			wrote <- err
		}()
		<-checked
		erased := make(chan error, 1)
		go func() {
			_, err := b.DeleteMessages(ctx, ar.IDs[0])
			erased <- err
		}()
		// The erasure either finishes now (nothing orders it after the
		// write) or waits for the write's lock; then the write goes on.
		waitErasure(ctx, t, cfg.Postgres, erased)
		close(release)
		if err := <-wrote; err != nil {
			t.Fatalf("the write whose check passed before the erasure: %v", err)
		}
		if err := <-erased; err != nil {
			t.Fatal(err)
		}
		for name, e := range map[string]*engine.Engine{"a": a, "b": b} {
			mem, err := e.WorkingMemory()
			if err != nil {
				t.Fatal(err)
			}
			st, err := mem.Get(ctx, working.ResourceKey("ana"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(st.Content, "Lyon") {
				t.Fatalf("engine %s's state after the erasure: v%d %q, want the version of the run that saw the erased turn gone", name, st.Version, st.Content)
			}
		}
	})
}

// openEngine opens an engine of cfg, closed when t ends.
func openEngine(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// waitErasure returns once the erasure reported on erased has finished
// (its result is put back) or a session waits for a run-context lock
// (journal.RunContextLockClass) of the schema dsn names, asking pg_locks
// on a connection of its own every few milliseconds until ctx ends.
func waitErasure(ctx context.Context, t *testing.T, dsn string, erased chan error) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for {
		select {
		case err := <-erased:
			erased <- err
			return
		case <-ctx.Done():
			t.Fatal("neither finished nor waiting:", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND classid = $1::int4::oid AND objid = hashtext(current_schema() || '/' || 'ana')::oid AND objsubid = 2`,
			journal.RunContextLockClass).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
}
