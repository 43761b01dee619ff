package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-go/mnemo/internal/store"
)

// CheckVersion returns ErrSchemaMigrated when the schema of tx's search
// path is no longer at SchemaVersion: a newer build migrated it while this
// process ran (with Options.MigrateUnderLoad, or past a process it could
// not see). OpenDB and DB register it as their *sql.DB's store.WriteCheck,
// so every owner's write (the engine's, the journal's, working memory's,
// the observer's, the outbox's) runs it first in its transaction, and
// this build stops writing rows the migrated schema would read wrongly
// (walk35: lexical entries without the date columns of version 4 ranked
// the messages lower). Its read of schema_version holds
// that table's ACCESS SHARE lock until tx ends, and a migration locks the
// table (ACCESS EXCLUSIVE, migrate) before its steps: a write transaction
// commits before a migration begins, or reads its version after it.
//
// One statement on a table of one row per version; the cost on Append and
// on the journal's one-statement writes is in docs/postgres.md
// (BenchmarkPostgresAppend, BenchmarkPostgresJournalWrite).
func CheckVersion(ctx context.Context, tx store.Conn) error {
	var v int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	return migrated(v)
}

// checkVersionPgx is CheckVersion for a write that goes through pgx
// rather than database/sql (EnsureEmbedder's registration).
func checkVersionPgx(ctx context.Context, tx pgx.Tx) error {
	var v int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	return migrated(v)
}

// migrated is ErrSchemaMigrated for a schema at version v, nil when v is
// SchemaVersion.
func migrated(v int) error {
	if v != SchemaVersion {
		return fmt.Errorf("%w (database version %d, this build %d): stop this process and run the newer build; "+
			"what this process wrote before the migration was migrated with the rest", ErrSchemaMigrated, v, SchemaVersion)
	}
	return nil
}
