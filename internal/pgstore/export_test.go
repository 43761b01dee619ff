package pgstore

import (
	"context"
	"net"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MigrationLock is the advisory lock name migrations take (with the schema).
const MigrationLock = migrationLock

// MigrateTo brings dsn's schema to version v (below SchemaVersion: a
// database left by an older build), whatever sessions are connected.
func MigrateTo(ctx context.Context, dsn string, v int) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return migrate(ctx, conn, v, migration{force: true})
}

// OpenTraced is Open with tracer on every connection (tests count
// connections and statements with it).
func OpenTraced(ctx context.Context, dsn string, tracer pgx.QueryTracer) (*pgxpool.Pool, error) {
	return openPool(ctx, dsn, &schemaCheck{}, tracer)
}

// OpenSeeing is OpenWith(o) whose migration guard sees only the sessions
// of the server processes pids: the tests' own, not those other tests on
// the shared server hold (none: it sees none).
func OpenSeeing(ctx context.Context, dsn string, o Options, pids ...int32) (*pgxpool.Pool, error) {
	keep := func(pid int32) bool { return slices.Contains(pids, pid) }
	return openPool(ctx, dsn, &schemaCheck{mustExist: o.MustExist, migration: migration{force: o.MigrateUnderLoad, keep: keep}}, nil)
}

// MigrateNext is a later build's Open of dsn's schema (at SchemaVersion)
// with MigrateUnderLoad: the migration to SchemaVersion+1, whose step only
// records the version (this build has no such migration).
func MigrateNext(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return migrateBy(ctx, conn, SchemaVersion+1, migration{force: true}, func(ctx context.Context, tx pgx.Tx, v int) error {
		_, err := tx.Exec(ctx, `INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)`, v+1)
		return err
	})
}

// SessionMarkClass is the session mark's first key less the version.
const SessionMarkClass = sessionMarkClass

// PgxPing is Session.Table of a session recognised by pgx's ping.
const PgxPing = pgxPing

// ConnectTimeoutOf is the connect timeout Open uses for dsn.
func ConnectTimeoutOf(dsn string) (time.Duration, error) {
	cfg, _, err := parse(dsn)
	if err != nil {
		return 0, err
	}
	return cfg.ConnConfig.ConnectTimeout, nil
}

// ServerSpoke is serverSpoke.
func ServerSpoke(c net.Conn) bool { return serverSpoke(c) }

// SetAfterVacuum makes Vacuum call f with each table once its vacuum
// returned, until the test ends.
func SetAfterVacuum(t interface{ Cleanup(func()) }, f func(table string)) {
	old := afterVacuum
	afterVacuum = f
	t.Cleanup(func() { afterVacuum = old })
}

// SetAfterMigrationLock makes every migration call f once it holds the
// migration lock, before it reads the version, until the test ends.
func SetAfterMigrationLock(t interface{ Cleanup(func()) }, f func()) {
	old := afterMigrationLock
	afterMigrationLock = f
	t.Cleanup(func() { afterMigrationLock = old })
}
