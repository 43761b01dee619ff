package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// This file is the write gate: the writers of one database file that Open
// opened queue for it in this process, first come first served, before
// SQLite's write lock, whichever handle of the file they write through. SQLite's own wait for that lock (busy_timeout) is a
// sleep-and-retry loop, not a queue: under load a writer could lose every
// retry to the other connections of the same pool and fail after
// BusyTimeoutMillis with SQLITE_BUSY, "database is locked" (rev43 F3: one
// of 8 goroutines appending to one thread at load 20). Behind the gate the
// writers of the process never meet that loop against each other; the
// busy timeout remains for another process's connections.
//
// What passes through the gate (the connection hooks of damage.go):
//   - a write transaction (BeginTx without ReadOnly: BEGIN IMMEDIATE, see
//     Open), from its begin to its commit or rollback: RunTx, Begin,
//     sql.DB.BeginTx;
//   - a statement run by Exec outside a transaction (an autocommit write
//     such as the outbox's INSERT, VACUUM, REINDEX), for its run;
//   - Checkpoint (wal_checkpoint(TRUNCATE), which takes the write lock).
//
// What does not: reads (Query outside a transaction, read-only
// transactions), Exec inside a transaction (its transaction holds the gate
// already), VacuumInto (a read), CheckpointPassive (it never waits for a
// writer). A write run through Query outside a transaction (UPDATE …
// RETURNING) would pass the gate by; the owners run none (ClaimOutbox's
// runs in RunTx).
//
// A goroutine that holds the gate (an open write transaction) must not
// wait for it again: begin a second write transaction, or run an
// autocommit write on the pool, before its own transaction ends. Such a
// wait, like any wait behind a writer that holds the gate too long (a
// transaction left open), ends after BusyTimeoutMillis with ErrWriteBusy,
// as SQLite's own wait ended with SQLITE_BUSY: nothing waits at the gate
// for ever, whatever its context. mnemo's Go locks (the engine's fence, the drainer's lock)
// are taken before a write begins, never inside one; the engine, server,
// importer, MCP, CLI and salvage tests ran with a check that panicked on
// such a re-entry and reported any wait of 20 s, and met neither.
//
// A writer waits at the gate holding database/sql's lock of its
// connection (database/sql calls the driver's BeginTx and Exec under it).
// Whatever waits for that lock (sql.Stmt.Close of a pool statement
// prepared on the connection) waits for the gate too: it must hold nothing
// the gate's holder may need. Stmts closes such a statement in a goroutine
// of its own (closeLater, stmt.go); before, it closed it under its cache's
// lock, which a holder's InTx wanted, and the writers queued behind failed
// with ErrWriteBusy after BusyTimeoutMillis (gate58).

// writeGate is the write gate of one database opened by Open: a FIFO
// semaphore of weight 1 (golang.org/x/sync/semaphore: waiters are served
// in the order they came, and a waiter whose context ends leaves the
// queue), the database file's (fileGate), shared by every handle Open
// returned on that file in this process.
type writeGate struct {
	*fileGate
	longest time.Duration // the longest wait in enter: BusyTimeoutMillis
}

// fileGate is the queue of one database file in this process, shared by
// the handles Open returned on it until CloseDB (handles counts them).
// Before, each handle had a queue of its own, and the writers of two
// handles on one file met in SQLite's busy handler again.
type fileGate struct {
	sem     *semaphore.Weighted
	waiting atomic.Int32 // writers queued in enter, for the tests
	file    os.FileInfo  // the file's identity (os.SameFile: device and inode on Unix)
	handles int          // under fileGates.mu
}

// fileGates lists the files that have a gate, one per file: few, looked
// through in turn.
var fileGates struct {
	mu    sync.Mutex
	files []*fileGate
}

// gateFor returns a gate for a new handle on the database file at path:
// the file's, shared with the other handles of this process on it (the
// same file through another name or link included), else a new one. The
// handle gives it back with release (CloseDB).
func gateFor(path string) (*writeGate, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	fileGates.mu.Lock()
	defer fileGates.mu.Unlock()
	g := &writeGate{longest: BusyTimeoutMillis * time.Millisecond}
	for _, f := range fileGates.files {
		if os.SameFile(f.file, fi) {
			f.handles++
			g.fileGate = f
			return g, nil
		}
	}
	g.fileGate = &fileGate{sem: semaphore.NewWeighted(1), file: fi, handles: 1}
	fileGates.files = append(fileGates.files, g.fileGate)
	return g, nil
}

// release gives g's handle's share of its file's gate back; the file's
// last handle removes it. A handle closed without CloseDB (sql.DB.Close)
// never releases: its file keeps its gate, which a later Open of the file
// shares (a waste, no harm).
func (g *writeGate) release() {
	fileGates.mu.Lock()
	defer fileGates.mu.Unlock()
	if g.handles--; g.handles == 0 {
		fileGates.files = slices.DeleteFunc(fileGates.files, func(f *fileGate) bool { return f == g.fileGate })
	}
}

// ErrWriteBusy is returned (wrapped) by a write that waited
// BusyTimeoutMillis at the write gate for this process's other writers:
// one of them held SQLite's write lock that long (a long erasure or
// VACUUM, a transaction left open), or the queue ahead was that long. It
// is matched too by SQLite's SQLITE_BUSY or SQLITE_LOCKED on a write
// past the gate, which a connection outside it (another process) caused
// by holding the write lock for the busy timeout (busyError, busy.go).
// The write did nothing; it may be retried.
var ErrWriteBusy = errors.New("the database is busy: this process's other writers held it for the whole busy timeout")

// enter waits for the gate as long as ctx allows, at most g.longest. what
// names the waiter in the error, which wraps ctx.Err() ("store: begin a
// write transaction: waiting for this process's other writers: context
// canceled") or ErrWriteBusy.
func (g *writeGate) enter(ctx context.Context, what string) error {
	wait, cancel := context.WithTimeout(ctx, g.longest)
	defer cancel()
	g.waiting.Add(1)
	err := g.sem.Acquire(wait, 1)
	g.waiting.Add(-1)
	switch {
	case err == nil:
		return nil
	case ctx.Err() == nil:
		return fmt.Errorf("store: %s: waited %s for this process's other writers: %w", what, g.longest, ErrWriteBusy)
	}
	return fmt.Errorf("store: %s: waiting for this process's other writers: %w", what, ctx.Err())
}

// leave lets the next writer in.
func (g *writeGate) leave() { g.sem.Release(1) }

// gates maps each *sql.DB that Open returned, until CloseDB, to its gate.
var gates sync.Map

// gateOf returns db's write gate, nil for a database Open did not open
// (Postgres, whose row and advisory locks queue already; a read-only
// one).
func gateOf(db *sql.DB) *writeGate {
	if v, ok := gates.Load(db); ok {
		return v.(*writeGate)
	}
	return nil
}

// ungatedKey marks a context whose Exec outside a transaction is a read
// (VACUUM INTO) and does not take the gate.
type ungatedKey struct{}

// ungated returns ctx marked so that the statements run with it outside a
// transaction pass the gate by.
func ungated(ctx context.Context) context.Context {
	return context.WithValue(ctx, ungatedKey{}, true)
}

func isUngated(ctx context.Context) bool {
	v, _ := ctx.Value(ungatedKey{}).(bool)
	return v
}
