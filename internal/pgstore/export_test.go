package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// MigrationLock is the advisory lock name migrations take (with the schema).
const MigrationLock = migrationLock

// MigrateTo brings dsn's schema to version v (below SchemaVersion: a
// database left by an older build).
func MigrateTo(ctx context.Context, dsn string, v int) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return migrate(ctx, conn, v)
}
