package pgstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	pgxvec "github.com/pgvector/pgvector-go/pgx"
)

// Querier is what the functions of this package run statements on: a
// *pgxpool.Pool, a *pgx.Conn or a pgx.Tx (the caller's transaction).
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// Open connects to the Postgres database named by dsn (a URL
// "postgres://user@host:port/db?sslmode=…" or keyword/value pairs, as
// libpq and pgx accept; search_path selects the schema mnemo's tables live
// in), applies pending migrations and returns the connection pool, whose
// connections know pgvector's types. The caller closes it.
//
// Migrations run on one connection inside one transaction that holds a
// transaction-scoped advisory lock, so processes that open the same schema
// at once apply them once, one after the other; a database already at
// SchemaVersion is only read. Open returns ErrSchemaTooNew (nothing
// written) when the schema is newer than this build, ErrNoVector when
// pgvector cannot be created, and otherwise wraps pgx's error, naming the
// host and database but never the password.
func Open(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	return openPool(ctx, dsn, false)
}

// OpenExisting is Open on a schema that must already hold mnemo's tables:
// when the search_path's schema has no schema_version table it returns
// ErrNoSchema and creates nothing (neither the tables nor pgvector), so a
// mistyped database or search_path is an error rather than a new memory.
func OpenExisting(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	return openPool(ctx, dsn, true)
}

func openPool(ctx context.Context, dsn string, mustExist bool) (*pgxpool.Pool, error) {
	cfg, where, err := prepare(ctx, dsn, mustExist)
	if err != nil {
		return nil, err
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		return pgxvec.RegisterTypes(ctx, c)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open %s: %w", where, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: open %s: %w", where, err)
	}
	return pool, nil
}

// OpenDB is Open through pgx's database/sql driver (pgx/v5/stdlib): it
// applies pending migrations as Open does and returns a *sql.DB on the
// database, whose connections know pgvector's types. The owners of the
// tables (journal, working, observe, internal/msgstore) run on it as on
// internal/store's SQLite *sql.DB; store.DialectOf reports it as
// store.Postgres. The caller closes it.
func OpenDB(ctx context.Context, dsn string) (*sql.DB, error) {
	cfg, where, err := prepare(ctx, dsn, false)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg.ConnConfig, stdlib.OptionAfterConnect(pgxvec.RegisterTypes))
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("pgstore: open %s: %w", where, err)
	}
	return db, nil
}

// prepare parses dsn, applies pending migrations on one connection and
// returns the pool configuration and where (host:port/database, for
// errors; never the password). With mustExist it first returns
// ErrNoSchema, writing nothing, when there is no schema_version table.
func prepare(ctx context.Context, dsn string, mustExist bool) (*pgxpool.Config, string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("pgstore: %w", err) // pgx redacts the password
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	// Literals this package writes into SQL text (an embedder's name in its
	// partial index predicate) double quotes only, as standard strings do.
	cfg.ConnConfig.RuntimeParams["standard_conforming_strings"] = "on"
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		return nil, "", fmt.Errorf("pgstore: open %s: %w", where, err)
	}
	if mustExist {
		err = schemaExists(ctx, conn)
	}
	if err == nil {
		err = migrate(ctx, conn, SchemaVersion)
	}
	conn.Close(context.WithoutCancel(ctx))
	if err != nil {
		return nil, "", fmt.Errorf("pgstore: open %s: %w", where, err)
	}
	return cfg, where, nil
}

// schemaExists returns ErrNoSchema when the search_path holds no
// schema_version table.
func schemaExists(ctx context.Context, conn *pgx.Conn) error {
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('schema_version') IS NOT NULL`).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w (no schema_version table in the search_path's schema)", ErrNoSchema)
	}
	return nil
}
