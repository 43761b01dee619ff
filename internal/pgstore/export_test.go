package pgstore

import (
	"context"
	"net"
	"time"

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
