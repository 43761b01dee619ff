package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/pgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// VacuumResult is what Vacuum did.
type VacuumResult struct {
	// Backend is "sqlite" or "postgres".
	Backend string `json:"backend"`
	// Full is true when Postgres rewrote the tables (VACUUM FULL); SQLite
	// always rewrites its file.
	Full bool `json:"full"`
	// Tables lists each vacuumed table's size on disk before and after,
	// in bytes (Postgres: table, indexes and TOAST; SQLite: one entry,
	// DatabaseFile, the file with its WAL).
	Tables []VacuumedTable `json:"tables"`
}

// VacuumedTable is one table's (or the SQLite file's) size before and
// after Vacuum, in bytes.
type VacuumedTable struct {
	// Name is the table's name, or DatabaseFile for the SQLite file as a whole.
	Name string `json:"name"`
	// BytesBefore is its size before Vacuum, in bytes.
	BytesBefore int64 `json:"bytesBefore"`
	// BytesAfter is its size after Vacuum, in bytes (Postgres: -1 when
	// that size could not be read; the table was vacuumed).
	BytesAfter int64 `json:"bytesAfter"`
}

// Vacuum reclaims the space erased rows left, for an operator after
// erasures (mnemo vacuum).
//
// On Postgres an erasure deletes rows in one transaction, and the deleted
// rows stay in the tables' pages as dead tuples until VACUUM. Vacuum runs
// VACUUM (ANALYZE) on every table an erasure touches,
// which frees their space for reuse without zeroing it; with full, VACUUM
// FULL instead writes each table anew, locking it against every reader and
// writer meanwhile, and unlinks the old files (the file system does not
// wipe them). Neither reaches the WAL, backups or replicas.
//
// On SQLite there is nothing to free for erasure's sake: the database runs
// with secure_delete, the erasure of a thread or resource rebuilds every
// index, and an erasure checkpoints the WAL and zeroes a copy of an
// erased text that survived in a page's free space, or vacuums the file
// when it cannot zero it in place (EraseResult.Vacuumed). Vacuum rewrites
// the file (SQLite's VACUUM, which returns free pages to the file system)
// and truncates the WAL; full changes nothing.
//
// Errors: ErrClosed; ErrVacuumIncomplete when it stopped after part of
// its work was done (with ctx's error when cancelled); the database's
// error (ctx's when cancelled).
func (e *Engine) Vacuum(ctx context.Context, full bool) (*VacuumResult, error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	if e.onPostgres() {
		tables, err := pgstore.Vacuum(ctx, e.db, full)
		res := &VacuumResult{Backend: "postgres", Full: full}
		for _, t := range tables {
			res.Tables = append(res.Tables, VacuumedTable{Name: t.Table, BytesBefore: t.BytesBefore, BytesAfter: t.BytesAfter})
		}
		switch {
		case err != nil && len(res.Tables) > 0:
			return res, fmt.Errorf("%w: %d of %d tables vacuumed: %w", ErrVacuumIncomplete, len(res.Tables), len(pgstore.ErasedTables), err)
		case err != nil:
			return res, fmt.Errorf("engine: vacuum: %w", err)
		}
		return res, nil
	}
	file := filepath.Join(e.dir, DatabaseFile)
	t := VacuumedTable{Name: DatabaseFile, BytesBefore: fileBytes(file)}
	if err := store.Vacuum(ctx, e.db); err != nil {
		return nil, fmt.Errorf("engine: vacuum: %w", err)
	}
	if vacuumedHook != nil {
		vacuumedHook()
	}
	if err := e.checkpoint(ctx); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr // not the erasure's ErrEraseIncomplete that checkpoint wraps
		}
		return nil, fmt.Errorf("%w: %s was rewritten and the rewrite committed, but the WAL checkpoint that writes it into place did not finish: %w", ErrVacuumIncomplete, DatabaseFile, err)
	}
	t.BytesAfter = fileBytes(file)
	return &VacuumResult{Backend: "sqlite", Full: true, Tables: []VacuumedTable{t}}, nil
}

// vacuumedHook, nil but in tests, is called by Vacuum on SQLite between
// its VACUUM and its WAL checkpoint (a test cancels the context there).
var vacuumedHook func()

// fileBytes is the size of the SQLite file at path with its WAL (0 for
// what is missing).
func fileBytes(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}
