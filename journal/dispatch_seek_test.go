package journal_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// TestDispatchLookupsSeekByCall: the lookups of the tool messages that
// answer a dispatch's call id (RunDispatches' Answered, PendingDispatches,
// AnsweredBy, DispatchAnswer) seek messages_by_tool_call, a partial index
// (a non-empty tool_call_id) that a planner uses only when the statement
// says the id is not empty: SQLite's EXPLAIN QUERY PLAN names it, and
// Postgres's generic plans read a handful of messages of the thread's
// 6,000 (pg_stat_xact_user_tables). Without the term SQLite read every
// message stored (RunDispatches) or every message of the thread from the
// call on, and Postgres the thread's from the call on. The answers are
// those of a pending dispatch whose call no tool message answers.
func TestDispatchLookupsSeekByCall(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		j, db := b.openErase(t)
		fillDispatchThread(t, db, 2000)
		if b.Dialect == store.SQLite {
			for _, c := range journal.DispatchLookups {
				if text := b.Plan(t, db, c.Query, c.Args...); !strings.Contains(text, "USING INDEX messages_by_tool_call") {
					t.Errorf("%s does not seek messages_by_tool_call: %s", c.Name, text)
				}
			}
		}
		tx, err := store.Begin(ctx, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		if b.Dialect == store.Postgres {
			if _, err := tx.ExecContext(ctx, `SET LOCAL plan_cache_mode = force_generic_plan`); err != nil {
				t.Fatal(err)
			}
		}
		lookUpDispatch(t, j, tx)
		if b.Dialect != store.Postgres {
			return
		}
		var read int64
		if err := tx.QueryRowContext(ctx, `SELECT seq_tup_read + COALESCE(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables
			WHERE relid = 'messages'::regclass`).Scan(&read); err != nil {
			t.Fatal(err)
		}
		if read > 40 {
			t.Errorf("the four lookups read %d messages of the thread's 6,000, want the call's and its results only (messages_by_tool_call)", read)
		}
	})
}

// lookUpDispatch runs the four lookups in tx and checks their answers for
// fillDispatchThread's pending dispatch (run "run", call-1, unanswered).
func lookUpDispatch(tb testing.TB, j *journal.Journal, tx *store.Tx) {
	ctx := context.Background()
	ds, err := journal.RunDispatches(ctx, tx, "run", 10)
	if err != nil || len(ds) != 1 || ds[0].Answered {
		tb.Fatalf("RunDispatches = %+v, %v; want call-1 unanswered", ds, err)
	}
	pending, err := j.PendingDispatches(ctx, tx, "t", 1<<40)
	if err != nil || len(pending) != 1 || pending[0].CallID != "call-1" {
		tb.Fatalf("PendingDispatches = %+v, %v; want call-1", pending, err)
	}
	answered, err := journal.AnsweredBy(ctx, tx, "t", "call-1", 1<<40)
	if err != nil || len(answered) != 1 || answered[0].RunID != "run" {
		tb.Fatalf("AnsweredBy = %+v, %v; want run's", answered, err)
	}
	if id, ok, err := journal.DispatchAnswer(ctx, tx, "run", "call-1"); err != nil || ok {
		tb.Fatalf("DispatchAnswer = %q, %v, %v; want none", id, ok, err)
	}
}

// fillDispatchThread stores thread "t" of resource "r": rounds of an
// assistant message making call-i, its tool result and a user message
// (3×rounds messages), except that call-1's result answers call-0; and a
// pending dispatch of call-1 by run "run". It runs ANALYZE.
func fillDispatchThread(tb testing.TB, db *sql.DB, rounds int) {
	ctx := context.Background()
	storetestInTx(tb, db, func(q store.Conn) error {
		if _, err := q.ExecContext(ctx, `INSERT INTO threads (id, resource_id, created_at, updated_at, message_count) VALUES ('t', 'r', 0, 0, ?)`, 3*rounds); err != nil {
			return err
		}
		for i := 1; i <= rounds; i++ {
			answers := fmt.Sprintf("call-%d", i)
			if i == 1 {
				answers = "call-0"
			}
			if _, err := q.ExecContext(ctx, `INSERT INTO messages (id, thread_id, resource_id, seq, role, content, tool_calls, tool_call_id, created_at, tokens, digest) VALUES
				(?, 't', 'r', ?, 'assistant', '', ?, '', 0, 1, ''), (?, 't', 'r', ?, 'tool', 'ok', NULL, ?, 0, 1, ''), (?, 't', 'r', ?, 'user', 'hi', NULL, '', 0, 1, '')`,
				fmt.Sprintf("a%d", i), 3*i-2, fmt.Sprintf(`[{"id":"call-%d","name":"f","arguments":{}}]`, i),
				fmt.Sprintf("t%d", i), 3*i-1, answers, fmt.Sprintf("u%d", i), 3*i); err != nil {
				return err
			}
		}
		_, err := q.ExecContext(ctx, `INSERT INTO dispatches (run_id, call_id, thread_id, resource_id, message_id, name, begun_at) VALUES ('run', 'call-1', 't', 'r', 'a1', 'f', 0)`)
		return err
	})
	if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
		tb.Fatal(err)
	}
}

// storetestInTx runs fn on a transaction of db rebound to its dialect and
// commits it.
func storetestInTx(tb testing.TB, db *sql.DB, fn func(store.Conn) error) {
	tb.Helper()
	tx, err := store.Begin(context.Background(), db, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if err := fn(store.Bound(tx)); err != nil {
		_ = tx.Rollback()
		tb.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkDispatchLookups times the four lookups of the tool messages
// answering a dispatch's call id (as TestDispatchLookupsSeekByCall runs
// them, in one transaction it rolls back) for a pending dispatch at the
// start of a thread of 3×rounds messages. Their cost should not follow
// the thread's length.
//
//	go test ./journal/ -run '^$' -bench DispatchLookups
func BenchmarkDispatchLookups(b *testing.B) {
	for _, be := range []struct {
		name string
		open func(b *testing.B) *sql.DB
	}{
		{"sqlite", func(b *testing.B) *sql.DB { return benchDB(b, store.Open, filepath.Join(b.TempDir(), "mnemo.db")) }},
		{"postgres", func(b *testing.B) *sql.DB { return benchDB(b, pgstore.OpenDB, pgtest.DSN(b)) }},
	} {
		for _, rounds := range []int{1_000, 10_000} {
			b.Run(fmt.Sprintf("%s/msgs-%d", be.name, 3*rounds), func(b *testing.B) {
				db := be.open(b)
				fillDispatchThread(b, db, rounds)
				j := journal.New(db, nil)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					tx, err := store.Begin(ctx, db, nil)
					if err != nil {
						b.Fatal(err)
					}
					lookUpDispatch(b, j, tx)
					_ = tx.Rollback()
				}
			})
		}
	}
}
