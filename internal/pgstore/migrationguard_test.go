package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
)

// session is a connection of the test's own standing for another process:
// app is its application_name ("" for none, as builds before the session
// marks connect), each of stmts runs on it in turn; it closes when t ends.
// It returns the connection's server pid.
func session(t *testing.T, dsn, app string, stmts ...string) int32 {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	delete(cfg.RuntimeParams, "application_name")
	if app != "" {
		cfg.RuntimeParams["application_name"] = app
	}
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	var pid int32
	if err := conn.QueryRow(t.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts { // the last is what pg_stat_activity shows
		if _, err := conn.Exec(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return pid
}

// otherSchema is the DSN of a second schema of the test database, at
// version 3, dropped when t ends.
func otherSchema(t *testing.T) string {
	t.Helper()
	other := pgtest.DSN(t)
	if err := pgstore.MigrateTo(t.Context(), other, 3); err != nil {
		t.Fatal(err)
	}
	return other
}

// mark is the statement that takes the session mark of version v on the
// schema named by schemaExpr (an SQL expression).
func mark(v int, schemaExpr string) string {
	return fmt.Sprintf(`SELECT pg_advisory_lock_shared(%d, hashtext(%s))`, pgstore.SessionMarkClass|v, schemaExpr)
}

// schemaVersion reads dsn's schema version.
func schemaVersion(t *testing.T, dsn string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v int
	if err := conn.QueryRow(t.Context(), `SELECT max(version) FROM schema_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMigrationGuard: Open does not migrate a schema of version 3 while a
// session of an older build is connected to it (walk35: an old server
// went on writing lexical entries without the date columns of version 4),
// and says who they are and what to do; sessions of this build, of other
// schemas and of other programs do not stop it; MigrateUnderLoad
// migrates anyway. Without the guard, Open migrated in each case. A
// session of a build before the marks is placed on a schema by the
// relation locks of its transaction: busy on another schema, it does not
// stop the migration (OldBuildBusyElsewhere: refused before, "schema not
// known"); idle, its schema cannot be told and it still does.
func TestMigrationGuard(t *testing.T) {
	const oldQuery = `SELECT count(*) FROM lexical_docs`
	for _, c := range []struct {
		name     string
		sessions func(t *testing.T, dsn string) []int32
		force    bool
		want     []int // the refusing sessions' versions (0: unknown); nil: migrated
	}{
		{"ErrOldBuild", func(t *testing.T, dsn string) []int32 {
			return []int32{session(t, dsn, "", oldQuery)}
		}, false, []int{0}},
		{"ErrOlderMark", func(t *testing.T, dsn string) []int32 {
			return []int32{session(t, dsn, "walk", mark(3, "current_schema()"))}
		}, false, []int{3}},
		{"ErrOlderConnecting", func(t *testing.T, dsn string) []int32 {
			return []int32{session(t, dsn, "mnemo/schema=3")}
		}, false, []int{3}},
		{"ErrTwo", func(t *testing.T, dsn string) []int32 {
			return []int32{session(t, dsn, "", oldQuery), session(t, dsn, "", `SELECT 1 FROM outbox LIMIT 1`)}
		}, false, []int{0, 0}},
		{"OthersMigrate", func(t *testing.T, dsn string) []int32 {
			return []int32{
				session(t, dsn, "x", mark(pgstore.SchemaVersion, "current_schema()")), // this build
				session(t, dsn, "x", mark(3, "'another_schema'")),                     // another schema's
				session(t, dsn, "psql", oldQuery),                                     // another program
				session(t, dsn, "", `SELECT 1`),                                       // an idle client of none of mnemo's tables
			}
		}, false, nil},
		{"ErrOldBuildBusyHere", func(t *testing.T, dsn string) []int32 {
			return []int32{session(t, dsn, "", "BEGIN", oldQuery)}
		}, false, []int{0}},
		{"OldBuildBusyElsewhere", func(t *testing.T, dsn string) []int32 {
			other := otherSchema(t)
			return []int32{session(t, other, "", "BEGIN", oldQuery), session(t, other, "mnemo/schema=3", "BEGIN", oldQuery)}
		}, false, nil},
		{"ErrOldBuildPinged", func(t *testing.T, dsn string) []int32 {
			// A serve that only answered GET /healthz since its last
			// request: its pooled session's last statement is pgx's ping.
			return []int32{session(t, dsn, "", oldQuery, "-- ping")}
		}, false, []int{0}},
		{"ErrOldBuildCommitted", func(t *testing.T, dsn string) []int32 {
			// After a write: the last statement is pgx's commit.
			return []int32{session(t, dsn, "", "begin", oldQuery, "commit")}
		}, false, []int{0}},
		{"ErrOldBuildIdleElsewhere", func(t *testing.T, dsn string) []int32 {
			return []int32{session(t, otherSchema(t), "", oldQuery)} // its schema cannot be told
		}, false, []int{0}},
		{"UnderLoad", func(t *testing.T, dsn string) []int32 {
			return []int32{session(t, dsn, "", oldQuery)}
		}, true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := pgtest.DSN(t)
			if err := pgstore.MigrateTo(t.Context(), dsn, 3); err != nil {
				t.Fatal(err)
			}
			pids := c.sessions(t, dsn)
			pool, err := pgstore.OpenSeeing(t.Context(), dsn, pgstore.Options{MigrateUnderLoad: c.force}, pids...)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Open: %v, want the schema migrated", err)
				}
				pool.Close()
				if got, want := schemaVersion(t, dsn), pgstore.SchemaVersion; got != want {
					t.Fatalf("version after Open = %d, want %d", got, want)
				}
				return
			}
			if err == nil {
				pool.Close()
				t.Fatalf("Open migrated from 3 to %d under %d sessions of older builds", schemaVersion(t, dsn), len(pids))
			}
			var ue *pgstore.UnderLoadError
			if !errors.Is(err, pgstore.ErrMigrationUnderLoad) || !errors.As(err, &ue) {
				t.Fatalf("Open: %v, want an *UnderLoadError", err)
			}
			t.Logf("refused: %v", err)
			if ue.From != 3 || ue.To != pgstore.SchemaVersion || len(ue.Sessions) != len(c.want) {
				t.Fatalf("UnderLoadError from %d to %d, %d sessions; want 3, %d, %d: %v", ue.From, ue.To, len(ue.Sessions), pgstore.SchemaVersion, len(c.want), err)
			}
			slices.Sort(pids) // the guard lists sessions by pid
			busy, unplaced := strings.HasSuffix(c.name, "BusyHere"), false
			for i, s := range ue.Sessions {
				if s.PID != pids[i] || s.Version != c.want[i] || s.Client == "" {
					t.Errorf("session %d = %+v, want pid %d, version %d", i, s, pids[i], c.want[i])
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("pid %d, application_name %q, client %s", s.PID, s.AppName, s.Client)) {
					t.Errorf("error does not name session %+v: %v", s, err)
				}
				if s.Locked != busy {
					t.Errorf("session %d Locked = %v, want %v", i, s.Locked, busy)
				}
				checkUnplaced(t, s, busy, err)
				unplaced = unplaced || s.Version == 0 && !busy
			}
			// An idle session of a build before the marks: the error says
			// how to tell whether its process is on this schema.
			if got := strings.Contains(err.Error(), "ss -tnp 'sport = :PORT'") && strings.Contains(err.Error(), "no reindex is needed"); got != unplaced {
				t.Errorf("error says how to place an idle old session: %v, want %v: %v", got, unplaced, err)
			}
			for _, w := range []string{fmt.Sprintf("%d session", len(pids)), "Stop them", "--migrate-under-load", "mnemo reindex"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if got := schemaVersion(t, dsn); got != 3 {
				t.Fatalf("version after a refused Open = %d, want 3 (nothing migrated)", got)
			}
		})
	}
}

// checkUnplaced checks what the guard says of a refusing session s (err
// its error) of a build before the marks (Version 0): idle (its last
// statement over, no transaction), its state, for how long and the table
// it was recognised by; in a transaction on this schema (busy), only
// that. A marked session has no Table.
func checkUnplaced(t *testing.T, s pgstore.Session, busy bool, err error) {
	t.Helper()
	switch {
	case s.Version != 0:
		if s.Table != "" {
			t.Errorf("marked session %+v has a Table", s)
		}
	case busy:
		if s.State != "idle in transaction" || s.Idle != 0 || !strings.Contains(err.Error(), "in a transaction on this schema") {
			t.Errorf("session in a transaction %+v: want State %q, Idle 0, named so: %v", s, "idle in transaction", err)
		}
	default:
		want := fmt.Sprintf("a build before session marks, idle %s since a statement on %s, schema not known", s.Idle.Round(time.Second), s.Table)
		if s.Table == pgstore.PgxPing || s.Table == "pgx's commit" {
			want = fmt.Sprintf("idle %s since %s, schema not known", s.Idle.Round(time.Second), s.Table)
		}
		if s.State != "idle" || s.Idle <= 0 || s.Idle > time.Minute || !slices.Contains([]string{"lexical_docs", "outbox", pgstore.PgxPing, "pgx's commit"}, s.Table) ||
			!strings.Contains(err.Error(), want) {
			t.Errorf("idle session %+v: want State idle, Idle in (0, 1m], Table lexical_docs, outbox, the ping or the commit, %q in: %v", s, want, err)
		}
	}
}

// TestSessionMarked: each connection of a pool carries this build's mark, so
// a later build's guard finds it: application_name mnemo/schema=N (the
// DSN's own kept) and the shared advisory lock of its schema and version.
func TestSessionMarked(t *testing.T) {
	dsn := pgtest.DSN(t)
	for _, c := range []struct{ name, dsn, app string }{
		{"Default", dsn, fmt.Sprintf("mnemo/schema=%d", pgstore.SchemaVersion)},
		{"DSNsOwn", dsn + "&application_name=billing", "billing"},
	} {
		pool := mustOpen(t, c.dsn)
		var app string
		var marks int
		if err := pool.QueryRow(t.Context(), `SELECT current_setting('application_name'),
	(SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory' AND mode = 'ShareLock'
		AND classid = $1 AND objid = hashtext(current_schema())::oid AND objsubid = 2)`,
			int64(pgstore.SessionMarkClass|pgstore.SchemaVersion)).Scan(&app, &marks); err != nil {
			t.Fatal(err)
		}
		if app != c.app || marks != 1 {
			t.Errorf("%s: application_name %q, %d marks; want %q, 1", c.name, app, marks, c.app)
		}
		pool.Close()
	}
}

// TestCheckVersionHoldsMigration: a write transaction that passed
// CheckVersion keeps a later build's migration waiting until it ends, and
// the next one reads the migrated version and is refused with
// ErrSchemaMigrated. Without the lock migrate takes on schema_version,
// the migration committed under the open transaction.
func TestCheckVersionHoldsMigration(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	pool := mustOpen(t, dsn)
	db := pgstore.DB(pool)
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := pgstore.CheckVersion(ctx, tx); err != nil {
		t.Fatalf("CheckVersion at this build's version: %v", err)
	}
	migrated := make(chan error, 1)
	go func() { migrated <- pgstore.MigrateNext(context.Background(), dsn) }()
	waiting := func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE relation = 'schema_version'::regclass
	AND mode = 'AccessExclusiveLock' AND NOT granted`).Scan(&n)
		return err == nil && n > 0
	}
	for !waiting() {
		select {
		case err := <-migrated:
			t.Fatalf("the migration ended (%v) while a write transaction that read version %d was open", err, pgstore.SchemaVersion)
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-migrated; err != nil {
		t.Fatalf("migration: %v", err)
	}
	tx2, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback()
	err = pgstore.CheckVersion(ctx, tx2)
	if !errors.Is(err, pgstore.ErrSchemaMigrated) || !strings.Contains(err.Error(), fmt.Sprintf("database version %d, this build %d", pgstore.SchemaVersion+1, pgstore.SchemaVersion)) {
		t.Fatalf("CheckVersion after the migration: %v, want ErrSchemaMigrated naming both versions", err)
	}
}

// BenchmarkCheckVersion measures CheckVersion, the statement the engine
// runs first in each write transaction on Postgres, on an open
// transaction (engine's BenchmarkPostgresAppend gives the append it
// precedes).
//
//	MNEMO_TEST_POSTGRES=DSN go test ./internal/pgstore/ -run '^$' -bench CheckVersion -benchtime 5000x
func BenchmarkCheckVersion(b *testing.B) {
	ctx := context.Background()
	pool, err := pgstore.Open(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	db := pgstore.DB(pool)
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	b.ReportAllocs()
	for b.Loop() {
		if err := pgstore.CheckVersion(ctx, tx); err != nil {
			b.Fatal(err)
		}
	}
}
