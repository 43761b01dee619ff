package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migrationLock names the advisory lock that serialises migrations: the
// lock key is hashtext(migrationLock || current_schema()), so schemas of
// one database migrate independently and two openers of one schema queue.
const migrationLock = "mnemo.pgstore.migrate:"

// ensureSchema brings the schema of conn's search_path to SchemaVersion.
// A schema already there costs one round trip and takes no lock: its
// version is read first (readVersion), and a migration commits its tables
// with its schema_version row in one transaction, so what is read is a
// whole version. Any other version goes through migrate, which reads it
// again under the migration lock. With mustExist, a schema without a
// schema_version table is ErrNoSchema and nothing is written.
func ensureSchema(ctx context.Context, conn *pgx.Conn, mustExist bool, m migration) error {
	v, ok, current, err := readVersion(ctx, conn)
	at := pathState{schema: current}
	if err == nil && current == "" {
		// No schema_version on the path: a fresh schema, or a missing one
		// (or, under "$user", none of the path at all).
		at, err = currentSchema(ctx, conn)
	}
	if err == nil {
		err = checkFirstSchema(conn, at)
	}
	switch {
	case errors.Is(err, ErrNoSuchSchema):
		return err
	case err != nil:
		return fmt.Errorf("read schema version: %w", err)
	case !ok && mustExist:
		return fmt.Errorf("%w (no schema_version table in the search_path's schema)", ErrNoSchema)
	case v == SchemaVersion:
		return nil
	case v > SchemaVersion:
		return tooNew(v)
	}
	return migrate(ctx, conn, SchemaVersion, m)
}

// readVersion reads the schema version of conn's search_path in one round
// trip (the simple protocol: no statement to prepare), outside any
// transaction; ok is false when the search path's schema (current_schema(),
// where the migrations create the tables) has no schema_version table: the
// server answers undefined_table (and logs it) on a fresh database, and a
// schema_version table found further down the path (search_path
// "memory,public" with mnemo's tables in public) is another schema's, so
// it is not taken for this one's.
//
// current is the server's current_schema() (the schema the search path
// names first among those that exist), "" when the statement could not
// say (no schema_version table on the path).
func readVersion(ctx context.Context, conn *pgx.Conn) (v int, ok bool, current string, err error) {
	var cur *string
	err = conn.QueryRow(ctx, `SELECT coalesce(max(version), 0),
	coalesce(to_regclass(quote_ident(current_schema()) || '.schema_version') = 'schema_version'::regclass, false),
	current_schema()
	FROM schema_version`, pgx.QueryExecModeSimpleProtocol).Scan(&v, &ok, &cur)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		return 0, false, "", nil
	}
	if !ok {
		v = 0
	}
	if cur != nil {
		current = *cur
	}
	return v, ok && err == nil, current, err
}

// tooNew is ErrSchemaTooNew for a database at version v.
func tooNew(v int) error {
	return fmt.Errorf("%w (database version %d, this build %d)", ErrSchemaTooNew, v, SchemaVersion)
}

// migration is how migrate treats the sessions of older builds: force
// migrates under them (Options.MigrateUnderLoad); keep, when not nil,
// limits the sessions the guard sees (tests on a shared server).
type migration struct {
	force bool
	keep  func(pid int32) bool
}

// migrate brings the schema of conn's search_path to version target in one
// transaction holding the migration lock. The version is read under the
// lock, so a migration another process applied meanwhile is not applied
// again. A schema already at target is only read (schema_version is
// created only when absent, so a role without CREATE can open a migrated
// database).
//
// A schema that exists (version 1 or more) is migrated only when no
// session of an older build is connected to it (staleSessions), unless
// m.force: else *UnderLoadError. Its schema_version table is locked
// (ACCESS EXCLUSIVE) before the steps, so a write transaction of a later
// build, which reads schema_version first (CheckVersion), either commits
// before the migration begins or reads the migrated version after it.
func migrate(ctx context.Context, conn *pgx.Conn, target int, m migration) error {
	return migrateBy(ctx, conn, target, m, step)
}

// migrateBy is migrate applying each version's migration with apply
// (step; tests give a version this build has no migration for).
func migrateBy(ctx context.Context, conn *pgx.Conn, target int, m migration, apply func(context.Context, pgx.Tx, int) error) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1 || coalesce(current_schema(), '')))`, migrationLock); err != nil {
			return fmt.Errorf("take the migration lock: %w", err)
		}
		if afterMigrationLock != nil {
			afterMigrationLock()
		}
		v, err := version(ctx, tx)
		if err != nil {
			return err
		}
		if v > SchemaVersion {
			return tooNew(v)
		}
		if v > 0 && v < target {
			if err := guard(ctx, tx, v, target, m); err != nil {
				return err
			}
		}
		for ; v < target; v++ {
			if err := apply(ctx, tx, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// afterMigrationLock, when not nil, runs in migrateBy once the migration
// lock is held, before the version is read (tests: another session's
// commit this backend has read no invalidation of).
var afterMigrationLock func()

// guard locks schema_version against the write transactions of running
// processes (CheckVersion) and, unless m.force, refuses a migration from v
// to target while sessions of older builds are connected (staleSessions).
func guard(ctx context.Context, tx pgx.Tx, v, target int, m migration) error {
	if _, err := tx.Exec(ctx, `LOCK TABLE schema_version IN ACCESS EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("lock schema_version: %w", err)
	}
	if m.force {
		return nil
	}
	stale, err := staleSessions(ctx, tx, target, m.keep)
	if err != nil {
		return err
	}
	if len(stale) > 0 {
		return &UnderLoadError{From: v, To: target, Sessions: stale}
	}
	return nil
}

// version returns the schema version of tx's schema, creating an empty
// schema_version table (version 0) when there is none.
//
// Whether the table exists is read from pg_class as committed when the
// statement starts, under the migration lock: to_regclass answers from
// the backend's catalog cache, which keeps "no schema_version here" from
// readVersion until the backend reads the invalidation of another
// opener's commit, and taking an advisory lock does not make it read
// them; that opener then failed with "relation "schema_version" already
// exists" (readme73 F4).
func version(ctx context.Context, tx pgx.Tx) (int, error) {
	var exists bool
	// In the search path's own schema (see readVersion), not the first of
	// the path that has one.
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relname = 'schema_version' AND n.nspname = current_schema())`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !exists {
		// applied_at is the server's clock in Unix milliseconds.
		if _, err := tx.Exec(ctx, `CREATE TABLE schema_version (
	version    INTEGER PRIMARY KEY,
	applied_at BIGINT NOT NULL
)`); err != nil {
			return 0, fmt.Errorf("create schema_version: %w", err)
		}
		return 0, nil
	}
	var v int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// step applies migrations[v] (version v to v+1) and records it. The
// vector extension is ensured before the migration that needs it.
func step(ctx context.Context, tx pgx.Tx, v int) error {
	if v == 1 {
		if err := ensureVector(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, migrations[v]); err != nil {
		return fmt.Errorf("migrate to %d: %w", v+1, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version, applied_at)
	VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`, v+1); err != nil {
		return fmt.Errorf("migrate to %d: %w", v+1, err)
	}
	return nil
}

// vectorLock names the advisory lock ensureVector takes: the extension is
// the database's, and the migration lock is a schema's, so the migrations
// of two new schemas of one database run at once.
const vectorLock = "mnemo.pgstore.vector"

// ensureVector creates the pgvector extension when the database lacks it,
// or returns ErrNoVector with the server's reason; an extension installed
// in a schema the search_path leaves out is ErrVectorNotOnPath, naming the
// search_path to give. It reads pg_extension under a lock of the database
// (vectorLock, held until tx ends), so two migrations of new schemas at
// once create the extension once: the second reads it created (it failed
// with ErrNoVector, `extension "vector" already exists`).
func ensureVector(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, vectorLock); err != nil {
		return fmt.Errorf("take the pgvector lock: %w", err)
	}
	var schema string
	var onPath bool
	err := tx.QueryRow(ctx, `SELECT n.nspname, n.nspname = ANY (current_schemas(false))
	FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`).Scan(&schema, &onPath)
	switch {
	case err == nil && onPath:
		return nil
	case err == nil:
		return vectorOffPath(ctx, tx, schema)
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("look for pgvector: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE EXTENSION vector`); err != nil {
		return fmt.Errorf("%w: %v", ErrNoVector, err)
	}
	return nil
}

// vectorOffPath is the ErrVectorNotOnPath of the extension installed in
// schema, with the search_path that adds it after the current schema.
func vectorOffPath(ctx context.Context, tx pgx.Tx, schema string) error {
	var path string
	var current *string
	if err := tx.QueryRow(ctx, `SELECT current_setting('search_path'), current_schema()`).Scan(&path, &current); err != nil {
		return fmt.Errorf("read search_path: %w", err)
	}
	want := schema
	if current != nil {
		want = *current + "," + schema
	}
	return fmt.Errorf("%w: vector is installed in schema %q, which search_path %q leaves out; add it to the URL: search_path=%s",
		ErrVectorNotOnPath, schema, path, want)
}
