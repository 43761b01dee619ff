package pgstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/mnemo-go/mnemo/internal/store"
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
// Open makes one connection, the pool's first, which stays in the pool:
// the schema is checked on it before the pool hands it out (schemaCheck),
// in one statement when the schema is already at SchemaVersion.
// Migrations run on that connection inside one transaction that holds a
// transaction-scoped advisory lock, so processes that open the same schema
// at once apply them once, one after the other; a database already at
// SchemaVersion is only read. Open returns ErrEncoding (nothing read or
// written) when the database is not UTF8, ErrSchemaTooNew (nothing
// written) when the schema is newer than this build, ErrNoVector when
// pgvector cannot be created, and otherwise wraps pgx's error, naming the
// host and database but never the password.
//
// A schema that exists at an older version is migrated only when no
// session of an older mnemo build is connected to it: else
// *UnderLoadError (ErrMigrationUnderLoad) naming them, nothing migrated
// (Options.MigrateUnderLoad migrates anyway). Every connection of the pool
// carries this build's mark (session.go): application_name
// "mnemo/schema=<SchemaVersion>" unless the DSN names one, and a shared advisory lock
// naming the schema and SchemaVersion, which a later build's Open finds.
func Open(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	return OpenWith(ctx, dsn, Options{})
}

// OpenExisting is Open on a schema that must already hold mnemo's tables:
// when the search_path's schema has no schema_version table it returns
// ErrNoSchema and creates nothing (neither the tables nor pgvector), so a
// mistyped database or search_path is an error rather than a new memory.
func OpenExisting(ctx context.Context, dsn string) (*pgxpool.Pool, error) {
	return OpenWith(ctx, dsn, Options{MustExist: true})
}

// Options are OpenWith's choices; the zero value is Open's.
type Options struct {
	// MustExist is OpenExisting: ErrNoSchema, nothing created, when the
	// search_path's schema holds no mnemo tables.
	MustExist bool

	// MigrateUnderLoad migrates an older schema even while sessions of
	// older builds are connected to it (Open refuses with
	// *UnderLoadError). Rows those processes write afterwards follow their
	// own schema version: run mnemo reindex once they are stopped.
	MigrateUnderLoad bool
}

// OpenWith is Open with the choices of o.
func OpenWith(ctx context.Context, dsn string, o Options) (*pgxpool.Pool, error) {
	return openPool(ctx, dsn, &schemaCheck{mustExist: o.MustExist, migration: migration{force: o.MigrateUnderLoad}}, nil)
}

// openPool is OpenWith with the schema check check; tracer, when not nil,
// traces every connection of the pool (tests count connections and
// statements with it).
func openPool(ctx context.Context, dsn string, check *schemaCheck, tracer pgx.QueryTracer) (*pgxpool.Pool, error) {
	cfg, where, err := parse(dsn)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.Tracer = tracer
	cfg.AfterConnect = check.afterConnect
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool {
		return shouldPing(p.Conn, p.IdleDuration)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, &openError{where, err}
	}
	// The first connection checks the schema; released, it serves the
	// caller's first statement.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		pool.Close()
		return nil, &openError{where, err}
	}
	conn.Release()
	return pool, nil
}

// OpenDB is Open through pgx's database/sql driver (pgx/v5/stdlib): it
// applies pending migrations as Open does, on the *sql.DB's first
// connection, and returns a *sql.DB on the database, whose connections
// know pgvector's types, with CheckVersion as its store.WriteCheck. The
// owners of the tables (journal, working, observe, internal/msgstore) run
// on it as on internal/store's SQLite *sql.DB; store.DialectOf reports it
// as store.Postgres. The caller closes it (store.CloseDB). (The engine
// uses Open's pool, with a *sql.DB over the same pool.)
func OpenDB(ctx context.Context, dsn string) (*sql.DB, error) {
	cfg, where, err := parse(dsn)
	if err != nil {
		return nil, err
	}
	check := &schemaCheck{}
	db := stdlib.OpenDB(*cfg.ConnConfig, stdlib.OptionAfterConnect(func(ctx context.Context, c *pgx.Conn) error {
		err := check.afterConnect(ctx, c)
		if err != nil {
			c.Close(context.WithoutCancel(ctx)) // stdlib leaves a connection its AfterConnect refused open
		}
		return err
	}), dbShouldPing)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, &openError{where, err}
	}
	store.SetWriteCheck(db, CheckVersion)
	return db, nil
}

// DefaultConnectTimeout bounds each new connection's whole handshake (the
// dial, TLS and authentication) when the DSN
// sets no connect_timeout (nor PGCONNECT_TIMEOUT): pgx, as libpq, waits
// for ever by default, so a server that accepts connections and never
// answers (a stopped process, a network black hole) held Open, and every
// call that needed a new connection, as long as its context allowed,
// which for a CLI command or a pool growing in the background is for
// ever. A connection that timed out is an outage (ConnectionLost). It does
// not bound the schema check that follows on the pool's first connection
// (schemaCheck, AfterConnect): a migration another opener is applying is
// waited for (its advisory lock) as long as Open's context allows, and
// Open returns that context's error when it ends first.
const DefaultConnectTimeout = 10 * time.Second

// DB is a *sql.DB over pool (pgx's database/sql driver) that, as pool
// does, pings a connection before reusing it when the server has closed
// it since (shouldPing), with CheckVersion as its store.WriteCheck: every
// write the owners make through internal/store's helpers reads the
// schema's version first. The caller closes the *sql.DB (store.CloseDB),
// then pool.
func DB(pool *pgxpool.Pool) *sql.DB {
	db := stdlib.OpenDBFromPool(pool, dbShouldPing)
	store.SetWriteCheck(db, CheckVersion)
	return db
}

// dbShouldPing is shouldPing as database/sql's driver option.
var dbShouldPing = stdlib.OptionShouldPing(func(_ context.Context, p stdlib.ShouldPingParams) bool {
	return shouldPing(p.Conn, p.IdleDuration)
})

// shouldPing reports whether a pooled connection is pinged before it is
// used: when it was idle for more than a second (pgx's default), or when
// the server spoke on it since its last answer (serverSpoke: a restart, a
// failover or pg_terminate_backend sends FATAL 57P01 and closes the
// socket; a proxy that cut it closed it), which the ping then finds, so
// that the pool discards the connection and hands out another rather
// than failing the caller's statement. Without the second check, the
// first statement on each connection used in the second before a
// restart failed ("FATAL: terminating connection due to administrator
// command", or "unexpected EOF") although the server was back. The check
// is one non-blocking system call, no round trip.
func shouldPing(c *pgx.Conn, idle time.Duration) bool {
	return idle > time.Second || serverSpoke(c.PgConn().Conn())
}

// ParseDSN returns the error Open would return for dsn before it
// connects: a URL pgx cannot parse, or a parameter of pgx's, pgxpool's
// (pool_max_conns, statement_cache_capacity…) or this package's
// (tcp_user_timeout: ErrInvalid naming it) with a malformed value. It
// connects to nothing, so a command line can refuse such a URL as the
// usage error it is. pgx's errors give the URL with its password
// replaced.
func ParseDSN(dsn string) error {
	_, _, err := parse(dsn)
	return err
}

// parse parses dsn into a pool configuration and where (host:port/database,
// for errors; never the password): the connect timeout (DefaultConnectTimeout
// when the DSN sets none), the TCP user timeout of every connection
// (DefaultTCPUserTimeout, or the DSN's tcp_user_timeout: userTimeout) and
// the settings every connection needs. A malformed tcp_user_timeout
// returns ErrInvalid naming it.
func parse(dsn string) (*pgxpool.Config, string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, "", fmt.Errorf("pgstore: %w", err) // pgx redacts the password
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	ut, err := userTimeout(&cfg.ConnConfig.Config)
	if err != nil {
		return nil, "", err
	}
	cfg.ConnConfig.DialFunc = dialer(cfg.ConnConfig.ConnectTimeout, ut)
	// Literals this package writes into SQL text (an embedder's name in its
	// partial index predicate) double quotes only, as standard strings do.
	cfg.ConnConfig.RuntimeParams["standard_conforming_strings"] = "on"
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = appName()
	}
	// Text goes to and from the server as UTF-8 whatever the DSN,
	// PGCLIENTENCODING or the role's settings say (pgx's simple protocol
	// refuses anything else); checkEncoding verifies it took.
	cfg.ConnConfig.RuntimeParams["client_encoding"] = "UTF8"
	return cfg, where, nil
}

// schemaCheck is the AfterConnect of one pool (or *sql.DB): the first
// connection brings the schema to SchemaVersion (ensureSchema) before it
// is used, and every connection registers pgvector's types after that
// check, since on a fresh database the migration creates the extension.
// A connection made while the check runs waits for it; once the check
// has passed, later connections (the pool growing, a reconnect) only
// register the types. A failed check fails the connection, and the next
// one checks again. It is safe for concurrent use.
type schemaCheck struct {
	mustExist bool      // ErrNoSchema rather than a new schema (OpenExisting)
	migration migration // how a migration treats older builds' sessions

	mu   sync.Mutex
	done bool
}

// afterConnect checks c's encoding (checkEncoding), then the schema once,
// then marks c as this build's session (markSession) and registers
// pgvector's types on c.
func (s *schemaCheck) afterConnect(ctx context.Context, c *pgx.Conn) error {
	if err := checkEncoding(c); err != nil {
		return err
	}
	if err := s.check(ctx, c); err != nil {
		return err
	}
	if err := markSession(ctx, c); err != nil {
		return err
	}
	return pgxvec.RegisterTypes(ctx, c)
}

// check runs ensureSchema on c unless it has passed on an earlier connection.
func (s *schemaCheck) check(ctx context.Context, c *pgx.Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	if err := ensureSchema(ctx, c, s.mustExist, s.migration); err != nil {
		return err
	}
	s.done = true
	return nil
}
