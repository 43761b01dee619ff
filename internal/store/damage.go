package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
)

// A database opened by Open remembers whether SQLite reported it damaged
// (IsCorrupt: SQLITE_CORRUPT or SQLITE_NOTADB) to any of its connections:
// at a connection's open, a statement, a row read or a commit. Once it has,
// its WAL is left as found for `mnemo salvage`, which keeps the damaged
// file and its -wal byte for byte: CloseDB closes it without the checkpoint
// SQLite runs when the last connection closes (which copies the WAL into
// the damaged file and removes it, and with it what a torn WAL holds past
// its last whole commit), and CheckpointPassive does nothing. modernc.org/sqlite
// gives no access to SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, so CloseDB keeps a
// read-only connection open while the pool closes: SQLite checkpoints on
// close only under an exclusive lock, which that connection's shared lock
// denies, and a read-only connection never checkpoints (engine.CheckFile
// reads so too). What the pool wrote before the damage was found is in the
// WAL already; an erasure's truncating checkpoint (Checkpoint) still runs,
// as erased text must not stay in the WAL.

// damage is what a database opened by Open remembers of its file.
type damage struct {
	path string     // the database file
	wal  *WALDamage // what Open found in its write-ahead log (walguard.go)
	seen atomic.Bool
	// mark is the record of damage a process left beside the file
	// (damage_mark.go), read at Open and again at most every
	// DamageMarkRecheck (currentMark); nil when there was none or it was
	// cleared.
	mark atomic.Pointer[DamageMark]
	// markRead is when mark was last read: time since markEpoch.
	markRead atomic.Int64
	// markMu orders the reads of the record (readMark) and its removal
	// (ClearDamageMark).
	markMu sync.Mutex
	// unrecorded is the damage a check of this process found and could
	// not write beside the file (NoteDamage); nil until then, and after
	// ClearDamageMark.
	unrecorded atomic.Pointer[DamageMark]
	// file is the database file's identity when Open opened it (the
	// write gate's stat: os.SameFile), replaced what of it was found
	// replaced since, nil until then (replaced.go).
	file     os.FileInfo
	replaced atomic.Pointer[replacement]
	// walFD is a descriptor that held the -wal at its path at the last
	// look (walUnlinked), nil when none did.
	walFD atomic.Pointer[heldWAL]
	// recorded: note wrote the record (or tried to), once; not for
	// SQLITE_NOTADB, which every open of the file meets anyway.
	recorded atomic.Bool
}

// damages maps each *sql.DB that Open returned, until CloseDB, to its
// *damage.
var damages sync.Map

// note records err when it reports damage, and returns it, matching
// ErrDatabaseCorrupt then (its text unchanged). The first damaged page
// (SQLITE_CORRUPT) also writes the record beside the file that the next
// Open reads
// (damage_mark.go), best effort: a disk with no room keeps none, and the
// flag still holds in this process.
func (d *damage) note(err error) error {
	if err != nil && IsCorrupt(err) {
		d.seen.Store(true)
		if ResultCode(err) == sqliteCorrupt && d.recorded.CompareAndSwap(false, true) {
			_ = writeDamageMark(d.path, time.Now(), err)
		}
		if !errors.Is(err, ErrDatabaseCorrupt) {
			return corruptError{err}
		}
	}
	return err
}

// Damaged reports whether SQLite reported db's file damaged (IsCorrupt)
// to one of db's connections since Open; false for a database Open did not
// open (Postgres, a read-only connection of its own).
func Damaged(db *sql.DB) bool {
	v, ok := damages.Load(db)
	return ok && v.(*damage).seen.Load()
}

// keepsWAL reports whether d's file is known damaged, by this process
// (seen) or an earlier one (mark): its WAL is then left as found for
// salvage (CloseDB, CheckpointPassive).
func (d *damage) keepsWAL() bool {
	return d.seen.Load() || d.currentMark() != nil
}

// openWatched opens the SQLite database dsn names (at path) with every
// connection watched for damage (damages), remembering what Open found in
// its write-ahead log.
func openWatched(dsn, path string, wal *WALDamage) (*sql.DB, error) {
	inner, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	d := &damage{path: path, wal: wal}
	d.readMark()            // damage_mark.go
	g, err := gateFor(path) // gate.go
	if err != nil {
		return nil, err
	}
	d.file = g.file // replaced.go
	db := sql.OpenDB(watchConnector{inner, d, g})
	damages.Store(db, d)
	gates.Store(db, g)
	return db, nil
}

// closeKeepingWAL closes db (the pool's close, done) so that it neither
// checkpoints nor removes the WAL of the damaged file at path: a read-only
// connection holds the file's shared lock meanwhile, and is closed last.
// When that connection cannot be had, db is closed as usual.
func closeKeepingWAL(path string, done func() error) error {
	dsn := fileDSN(path, url.Values{
		"mode":    {"ro"},
		"_pragma": {fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMillis)},
	})
	ro, err := sql.Open("sqlite", dsn)
	if err != nil {
		return done()
	}
	ro.SetMaxOpenConns(1)
	var v int
	_ = ro.QueryRow(`PRAGMA user_version`).Scan(&v) // the read takes the shared lock; a damaged page 1 fails it after
	return errors.Join(done(), ro.Close())
}

// watchConnector opens connections whose errors note damage in d and
// whose writes pass gate (gate.go); an open that another program's lock
// kept busy fails with ErrDatabaseLocked (busy.go).
type watchConnector struct {
	inner driver.Connector
	d     *damage
	gate  *writeGate
}

func (c watchConnector) Connect(ctx context.Context) (driver.Conn, error) {
	// A connection opened once the file was replaced would read the new
	// file through the old one's -wal and -shm (pages of two files: "no
	// such table"), and, closed last, fold that log into the new file
	// (replaced.go). The pool's open connections go on reading the old.
	if err := c.d.replacedError("open a connection"); err != nil {
		return nil, err
	}
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, c.d.note(Locked("open a connection", err)) // busy.go
	}
	sc, ok := conn.(sqliteConn)
	if !ok { // another modernc.org/sqlite: TestDamageNoted fails
		return conn, nil
	}
	return &watchConn{sqliteConn: sc, d: c.d, gate: c.gate}, nil
}

// Driver returns the modernc driver (DialectOf reads its package).
func (c watchConnector) Driver() driver.Driver { return c.inner.Driver() }

// sqliteConn is what modernc.org/sqlite's connection implements.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// watchConn is a connection whose errors note damage and whose writes
// pass the gate: a write transaction from its begin to its end, a
// statement run by Exec outside a transaction for its run (gate.go).
type watchConn struct {
	sqliteConn
	d    *damage
	gate *writeGate
	inTx atomic.Bool // a transaction is open: its statements hold the gate if it is a write
}

func (c *watchConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *watchConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, c.d.note(err)
	}
	if ss, ok := s.(sqliteStmt); ok {
		return &watchStmt{ss, c}, nil
	}
	return s, nil
}

func (c *watchConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a transaction; a write one (not opts.ReadOnly: BEGIN
// IMMEDIATE) first waits for the gate, which it holds until its commit or
// rollback.
func (c *watchConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	write := !opts.ReadOnly
	if write {
		if err := c.d.replacedError("begin a write transaction"); err != nil { // replaced.go
			return nil, err
		}
		if err := c.gate.enter(ctx, "begin a write transaction"); err != nil {
			return nil, err
		}
	}
	tx, err := c.sqliteConn.BeginTx(ctx, opts)
	if err != nil {
		if write {
			c.gate.leave()
			err = writeBusy("begin a write transaction", err)
		}
		return nil, c.d.note(err)
	}
	c.inTx.Store(true)
	return &watchTx{Tx: tx, c: c, gated: write}, nil
}

func (c *watchConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	alone, err := c.enterAlone(ctx)
	if err != nil {
		return nil, err
	}
	r, err := c.sqliteConn.ExecContext(ctx, query, args)
	if alone {
		c.gate.leave()
		err = writeBusy("write", err)
	}
	return r, c.d.note(err)
}

// enterAlone waits for the gate for a statement Exec runs outside a
// transaction (an autocommit write), unless ctx is marked ungated (a
// read: VacuumInto); alone reports whether it entered, and the caller
// then leaves after the statement.
func (c *watchConn) enterAlone(ctx context.Context) (alone bool, err error) {
	if c.inTx.Load() || isUngated(ctx) {
		return false, nil
	}
	if err := c.d.replacedError("write"); err != nil { // replaced.go
		return false, err
	}
	if err := c.gate.enter(ctx, "write"); err != nil {
		return false, err
	}
	return true, nil
}

func (c *watchConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.d.rows(c.sqliteConn.QueryContext(ctx, query, args))
}

// sqliteStmt is what modernc.org/sqlite's statement implements.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// watchStmt is a prepared statement of c whose errors note damage and
// whose Exec outside a transaction passes the gate, as c's own Exec does.
type watchStmt struct {
	sqliteStmt
	c *watchConn
}

func (s *watchStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	alone, err := s.c.enterAlone(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.sqliteStmt.ExecContext(ctx, args)
	if alone {
		s.c.gate.leave()
		err = writeBusy("write", err)
	}
	return r, s.c.d.note(err)
}

func (s *watchStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.c.d.rows(s.sqliteStmt.QueryContext(ctx, args))
}

// sqliteRows is what modernc.org/sqlite's rows implement.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// watchRows are rows whose reads note damage: a damaged page is most often
// met while stepping through a result.
type watchRows struct {
	sqliteRows
	d *damage
}

// rows returns a query's answer with its rows watched for damage, and
// notes its error.
func (d *damage) rows(r driver.Rows, err error) (driver.Rows, error) {
	if err != nil {
		return nil, d.note(err)
	}
	if sr, ok := r.(sqliteRows); ok {
		return watchRows{sr, d}, nil
	}
	return r, nil
}

func (r watchRows) Next(dest []driver.Value) error { return r.d.note(r.sqliteRows.Next(dest)) }

// watchTx is a transaction of c whose commit and rollback note damage
// and, for a write transaction (gated), let the next writer in once
// SQLite has ended it (modernc rolls back a commit that failed).
type watchTx struct {
	driver.Tx
	c     *watchConn
	gated bool
}

func (t *watchTx) Commit() error {
	err := t.Tx.Commit()
	if t.gated {
		err = writeBusy("commit", err)
	}
	t.end()
	return t.c.d.note(err)
}

func (t *watchTx) Rollback() error {
	err := t.Tx.Rollback()
	t.end()
	return t.c.d.note(err)
}

// end marks the connection out of its transaction and leaves the gate
// (once).
func (t *watchTx) end() {
	t.c.inTx.Store(false)
	if t.gated {
		t.gated = false
		t.c.gate.leave()
	}
}
