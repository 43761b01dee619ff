package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Stmts holds statements prepared once on a pool. database/sql keeps each
// one prepared per connection, so a statement used through Stmts is parsed
// by SQLite once per connection instead of on every call: the modernc driver
// prepares a statement afresh for every ExecContext/QueryContext given a
// query string, which cost ~25 % of an Append and a visible part of every
// memctx write in the CPU profiles (BENCHMARKS.md).
//
// Use it for fixed SQL only: a query whose text varies (an IN list of n
// placeholders) would fill the cache with one statement per n; see InChunks.
// The statements are finalized when the pool is closed (DB.Close closes each
// connection's statements). A Stmts is safe for concurrent use.
//
// Queries are written in SQLite's text (? placeholders) and keyed by it; on
// Postgres the text is rebound (Dialect.Rebind) once, when the statement is
// prepared, so a cached statement costs nothing more per call on either
// backend.
type Stmts struct {
	db      *sql.DB
	dialect Dialect
	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]bool // prepared on the pool in the background (InTx)
}

// NewStmts returns an empty statement cache over db, in db's dialect
// (DialectOf).
func NewStmts(db *sql.DB) *Stmts {
	return &Stmts{db: db, dialect: DialectOf(db), m: map[string]*sql.Stmt{}, pending: map[string]bool{}}
}

// Dialect returns the dialect of the cache's database.
func (c *Stmts) Dialect() Dialect { return c.dialect }

// Prepare returns the pool statement for query, preparing it on first use.
// Preparing takes a connection of the pool; the cache's lock is not held
// meanwhile, so that a caller waiting for a connection never blocks
// another's cache hit.
//
// Two callers may prepare query at once: the first to store its statement
// wins, and the other's is closed in the background (closeLater), never
// under the cache's lock nor in the caller's goroutine.
func (c *Stmts) Prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if s := c.cached(query); s != nil {
		return s, nil
	}
	s, err := c.db.PrepareContext(ctx, c.dialect.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	c.mu.Lock()
	won := c.m[query]
	if won == nil {
		c.m[query] = s
	}
	c.mu.Unlock()
	if won != nil {
		closeLater(s) // another caller prepared it meanwhile
		return won, nil
	}
	return s, nil
}

// closeLater closes s, a pool statement, in a goroutine of its own.
//
// Closing a pool statement (sql.Stmt.Close) takes database/sql's lock of
// each connection it was prepared on, and a connection whose write waits
// at the write gate holds that lock for the whole wait (database/sql calls
// the driver's BeginTx and Exec under it; gate.go). A close waiting so
// while holding the cache's lock stalled the gate's holder in InTx until
// the waiter gave up after BusyTimeoutMillis (TestLoad/sqlite: the writes
// queued behind it failed with ErrWriteBusy; TestPrepareLoserBesideGate);
// one in the caller's goroutine would stall a caller that holds the gate
// the same way. The close needs no connection, and may end after the
// pool's: database/sql finalizes a statement whose connection is closed
// with the connection.
func closeLater(s *sql.Stmt) {
	go s.Close()
}

// cached returns query's pool statement, nil when not prepared yet.
func (c *Stmts) cached(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

// InTx returns query's statement on tx's connection (closed with tx): the
// cached pool statement bound to tx once it is prepared.
//
// Until then, the statement is prepared on tx's own connection for this
// call, and on the pool in the background for the next calls. Preparing it
// on the pool from here would wait for a second connection while tx holds
// one, which deadlocks when every other connection of the pool belongs to
// a transaction waiting for a lock tx holds: on Postgres, a burst of
// appends to one thread, each queued on the thread's advisory lock, as
// soon as they outnumber the pool's connections.
func (c *Stmts) InTx(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if s := c.cached(query); s != nil {
		return tx.StmtContext(ctx, s), nil
	}
	c.prepareLater(query)
	s, err := tx.PrepareContext(ctx, c.dialect.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return s, nil
}

// prepareLater prepares query on the pool in a goroutine of its own (once
// at a time per query), which waits for a free connection; an error (the
// pool closed meanwhile) leaves it to the next InTx.
func (c *Stmts) prepareLater(query string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[query] {
		return
	}
	bg := background(c.db)
	ctx, done := bg.start()
	if ctx == nil {
		return // CloseDB has begun: the next InTx prepares on its transaction
	}
	c.pending[query] = true
	go func() {
		defer done()
		_, _ = c.Prepare(ctx, query)
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.pending, query)
	}()
}

// prepares counts the background prepares (prepareLater) of one database,
// so that CloseDB can cancel them and wait until they have given their
// connection back before the database closes.
type prepares struct {
	mu     sync.Mutex
	closed bool
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// inflight holds the prepares of each database with background work
// (*sql.DB → *prepares).
var inflight sync.Map

func background(db *sql.DB) *prepares {
	ctx, cancel := context.WithCancel(context.Background())
	p, loaded := inflight.LoadOrStore(db, &prepares{ctx: ctx, cancel: cancel})
	if loaded {
		cancel()
	}
	return p.(*prepares)
}

// start counts one background prepare and returns its context and the
// function that ends it; ctx is nil once CloseDB has begun.
func (p *prepares) start() (ctx context.Context, done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil
	}
	p.wg.Add(1)
	return p.ctx, p.wg.Done
}

// CloseDB closes db (sql.DB.Close) after cancelling the statements that
// Stmts caches over it are preparing in the background and waiting for
// them. Without it a background prepare could outlive the close: its
// connection would be closed after CloseDB returned, and on SQLite the
// last connection's close checkpoints the WAL into the database file,
// which the caller may already be copying, checking or removing. A
// database found damaged (Damaged) is closed without that checkpoint: its
// WAL stays as it is for salvage (damage.go).
func CloseDB(db *sql.DB) error {
	writeChecks.Delete(db)
	if v, ok := gates.LoadAndDelete(db); ok {
		defer v.(*writeGate).release() // after the close: no connection of db writes any more
	}
	if v, ok := inflight.LoadAndDelete(db); ok {
		p := v.(*prepares)
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.cancel()
		p.wg.Wait()
	}
	if v, ok := damages.LoadAndDelete(db); ok && v.(*damage).keepsWAL() {
		return closeKeepingWAL(v.(*damage).path, db.Close)
	}
	return db.Close()
}

// Query runs a fixed query through its cached statement.
func (c *Stmts) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := c.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// QueryRow is QueryRowContext through query's cached statement; a prepare
// error is reported by the Row's Scan.
func (c *Stmts) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := c.Prepare(ctx, query)
	if err != nil {
		return c.db.QueryRowContext(ctx, c.dialect.Rebind(query), args...) // reports the same error on Scan
	}
	return s.QueryRowContext(ctx, args...)
}

// Exec runs a fixed statement through its cached statement; on a
// database with a WriteCheck (Postgres), in a transaction of its own
// after the check (execChecked).
func (c *Stmts) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := c.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	return execChecked(ctx, c.db, func() (sql.Result, error) { return s.ExecContext(ctx, args...) },
		func(tx *Tx) (sql.Result, error) { return tx.StmtContext(ctx, s).ExecContext(ctx, args...) })
}
