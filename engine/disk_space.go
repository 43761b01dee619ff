package engine

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mnemo-go/mnemo/recall"
)

// This file keeps the last write that the disk refused for lack of room,
// so that a server can say so while it lasts (GET /healthz: degraded).
// Each such write failed alone with ErrNoSpace (a 507), and nothing was
// kept: /healthz said ok while every append was refused.

// spaceState is the last write transaction refused for lack of room,
// until a write transaction commits, and the lexical index in use, whose
// own writes to its disk may be refused while mnemo.db still takes the
// appends (index_space.go). The two are apart: a commit says nothing of
// the index's room (disk56: a commit cleared DiskFull on a shared disk
// whose index still could not write), and the index's write nothing of
// mnemo.db's.
type spaceState struct {
	last atomic.Pointer[spaceRefusal]
	lex  atomic.Pointer[recall.Lexical]
}

// spaceRefusal is a write refused for lack of room: when, and its error.
type spaceRefusal struct {
	at  time.Time
	err error
}

// wrote is diskFull for the outcome of a write transaction (tx): a
// refusal for lack of room is kept (DiskFull), a commit (err nil) clears
// the one kept.
func (e *Engine) wrote(err error) error {
	if err == nil {
		if e.space.last.Swap(nil) != nil {
			e.roomAgain() // index_space.go
		}
		return nil
	}
	return e.writeFailed(err)
}

// writeFailed is diskFull for the error of a call that writes (a
// LoadContext, a tool call, a drain): a refusal for lack of room is kept
// (DiskFull). Its success clears nothing: it may have written nothing.
func (e *Engine) writeFailed(err error) error {
	err = diskFull(e.dir, err)
	if IsNoSpace(err) {
		e.space.last.Store(&spaceRefusal{at: e.now(), err: err})
	}
	return err
}

// wroteWorking is wrote for an update of the working memories the engine
// builds (working.Config.Wrote): a refusal for lack of room is kept, a
// committed version clears the one kept, an update that wrote nothing
// clears nothing.
func (e *Engine) wroteWorking(committed bool, err error) error {
	if committed {
		return e.wrote(nil)
	}
	return e.writeFailed(err)
}

// DiskFull returns an error matching ErrNoSpace while either of two
// writes finds no room on its disk; nil when neither does.
//
//   - mnemo.db's: the last write refused for lack of room (a write
//     transaction of the engine's: an append, an erasure, a context's
//     record, a tool call's working-memory change, an update through the
//     *working.Memory that WorkingMemory or OpenWorkingMemory returns; or
//     SyncIndexes) is the latest word on it, until the next write
//     transaction that commits (the disk has room again, or at least room
//     for that write). The error names when (UTC) and the refusal's
//     error, which names the disk and no stored data.
//   - the lexical index's: its last write to its disk was refused for
//     lack of room (SQLite may still take the appends: the outbox drainer
//     stops and the messages stay owed), until a write of the index
//     succeeds (scorch retries every 250 ms). A commit of mnemo.db does
//     not clear it, nor the index's write a refusal of mnemo.db's. The
//     error names the lexical index and when its refusals began.
//
// mnemo.db's refusal is returned when both hold. Kept in memory only:
// another process's writes (mnemo ingest beside the server) neither set
// nor clear it. Cheap: no I/O.
func (e *Engine) DiskFull() error {
	if r := e.space.last.Load(); r != nil {
		return fmt.Errorf("%w: the last write, at %s, was refused for lack of room (%v); the next write that commits clears this", ErrNoSpace, r.at.UTC().Format(time.RFC3339), r.err)
	}
	return e.indexRefused() // index_space.go
}
