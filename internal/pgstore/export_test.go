package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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

// OpenTraced is Open with tracer on every connection (tests count
// connections and statements with it).
func OpenTraced(ctx context.Context, dsn string, tracer pgx.QueryTracer) (*pgxpool.Pool, error) {
	return openPool(ctx, dsn, false, tracer)
}
