package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
)

// legacyTomb is the tombstone a build before 2026-12-06 put in place of an
// erased thread's id in another resource's run on it (walk56 F1).
const legacyTomb = engine.TombstonePrefix + "803dab1633b1dfb1085c"

// entombLegacy rewrites run's records the way builds before 2026-12-06
// left another resource's run on a thread id when that thread was erased:
// its thread id, in the memctx record's key columns, in its JSON and in
// the run's claim, is legacyTomb; its resource and query are kept.
func entombLegacy(t *testing.T, e *engine.Engine, run string) {
	t.Helper()
	ctx := context.Background()
	conn := engine.ConnOf(e)
	var out []byte
	if err := conn.QueryRowContext(ctx, `SELECT output FROM journal WHERE scope = ? AND key = ?`,
		journal.ScopeMemCtx, journal.MemCtxKey(run)).Scan(&out); err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatal(err)
	}
	rec["threadId"] = legacyTomb
	out, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `UPDATE journal SET thread_id = ?, output = ? WHERE scope = ? AND key = ?`,
		legacyTomb, out, journal.ScopeMemCtx, journal.MemCtxKey(run)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `UPDATE runs SET thread_id = ? WHERE id = ?`, legacyTomb, run); err != nil {
		t.Fatal(err)
	}
}

// TestLegacyEntombedRunExpires: a store written before 2026-12-06 may hold
// a run of one resource whose thread id the erasure of another resource's
// thread of that id made a tombstone, its query kept (walk56 F1: alice's
// LoadContext on chat-42, bob's append creates chat-42, its erasure). No
// expiry reached it (journal.GhostRuns left out tombstone thread ids), nor
// any erasure by thread: only DeleteResource. Opened by this build, it is
// a run with no stored thread of its resource: Expire expires it after the
// idle lifetime from its newest run, as any, and its query is in no file
// (no live row on Postgres).
func TestLegacyEntombedRunExpires(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
		st := be.NewStore(t)
		cfg := st.Config(engine.Config{Now: func() time.Time { return now }, Lifecycle: engine.Lifecycle{IdleTTL: time.Hour}})
		const alice, bob, query = "res-alice-5802", "res-bob-5802", "my biopsy came back malignant"
		old := enginetest.MustOpen(t, cfg)
		if _, err := old.LoadContext(ctx, engine.LoadRequest{RunID: "run-a1", ThreadID: "chat-42", ResourceID: alice, Query: query}); err != nil {
			t.Fatal(err)
		}
		appendUser(t, old, "chat-42", bob, "bob takes chat-42")
		if _, err := old.DeleteThread(ctx, "chat-42"); err != nil {
			t.Fatal(err)
		}
		entombLegacy(t, old, "run-a1")
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}

		now = now.Add(2 * time.Hour)
		e := enginetest.MustOpen(t, cfg)
		if runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ResourceID: alice}); err != nil || len(runs) != 1 || runs[0].ThreadID != legacyTomb {
			t.Fatalf("alice's runs as the old build left them: %+v, %v; want run-a1 on %s", runs, err, legacyTomb)
		}
		exp, err := e.Expire(ctx, engine.ExpireRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(exp.Threads) != 1 || exp.Threads[0].ThreadID != legacyTomb || exp.Threads[0].ResourceID != alice {
			t.Errorf("expired %+v, want %s of %s alone", exp.Threads, legacyTomb, alice)
		}
		if _, err := e.Journal().MemCtx(ctx, "run-a1"); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("alice's legacy run after the expiry: %v, want ErrNotFound", err)
		}
		if runs, err := e.Journal().ListRuns(ctx, journal.RunFilter{ResourceID: alice}); err != nil || len(runs) != 0 {
			t.Errorf("alice's runs after the expiry: %+v, %v; want none", runs, err)
		}
		if hits := storedCopies(t, be, e, query); len(hits) > 0 {
			t.Errorf("alice's query is still in %v", hits)
		}
	})
}
