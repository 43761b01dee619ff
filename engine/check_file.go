package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// CheckFile runs the database checks of CheckWith on the data directory
// cfg.Dir's mnemo.db without opening the engine: SQLite's quick_check (with
// opts.Full: integrity_check, then every message compared with its stored
// digest). It reads through a read-only connection, which neither writes
// mnemo.db nor checkpoints or removes its -wal: an engine's Open and Close
// would fold the WAL into a damaged file (and drop what a torn WAL holds
// past its first bad frame) before Salvage could keep both as found.
//
// Before that open, a damaged log whose -shm says a checkpoint copied
// frames past the damage into mnemo.db is kept and set aside, as Open
// sets it aside: read with it, mnemo.db would read
// older page versions over newer ones; and when no valid -shm tells, a
// copy of mnemo.db is kept (mnemo.db.before-wal-*) as Open keeps one.
//
// It takes and releases the directory's lock (a *LockedError when another
// process holds it) and refuses, as Open does, a directory whose salvage
// was interrupted (ErrSalvageInterrupted), a mnemo.db that is not a
// regular file (ErrDatabaseNotFile, with ErrDatabaseCorrupt) and a
// mnemo.db-wal that is not one (ErrWALNotFile: a pipe is never opened,
// a link never followed). It returns a *CheckError whose Database lists
// the findings (errors.Is ErrDatabaseCorrupt), or nil when there are none
// or the file holds no mnemo schema (then Open says what is wrong). On
// Postgres (cfg.Postgres) it does nothing: there is no file.
func CheckFile(ctx context.Context, cfg Config, opts CheckOptions) error {
	if ctx == nil {
		return ErrNilContext
	}
	if cfg.Postgres != "" {
		return nil
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil || cfg.Dir == "" {
		return invalid(-1, "Dir", "the data directory is required")
	}
	path := filepath.Join(dir, DatabaseFile)
	if _, err := os.Stat(path); err != nil {
		return notDataDir(dir, err)
	}
	if err := notRegularDatabase(dir); err != nil { // engine.go: as Open refuses them
		return err
	}
	lock, err := lockDir(ctx, dir, cfg.holder(), cfg.lockWait())
	if err != nil {
		return err
	}
	defer lock.release()
	if err := checkSwap(dir); err != nil { // salvage_swap.go
		return err
	}
	// The read-only open's recovery rewrites the -shm: what it says of a
	// damaged log is read first (a log a checkpoint had copied past the
	// damage is set aside, kept, as Open would).
	if _, err := store.GuardReadOnly(path); err != nil {
		return err
	}
	found, err := checkFileAt(ctx, path, opts.Full)
	if err != nil {
		return err
	}
	wal := keptWALFindings(dir) // wal_damage.go
	if len(found) == 0 && len(wal) == 0 {
		return nil
	}
	if len(found) > 0 { // recorded for the next process, as a read that meets a damaged page records it (check_damage_mark.go); best effort
		_ = store.RecordDamage(path, time.Now(), checkFound(len(found)))
	}
	return &CheckError{Database: found, WAL: wal}
}

// checkFileAt runs the checks of CheckFile on the database at path,
// opened read-only.
func checkFileAt(ctx context.Context, path string, full bool) ([]string, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + url.Values{
		"mode":    {"ro"},
		"_pragma": {fmt.Sprintf("busy_timeout(%d)", store.BusyTimeoutMillis), "query_only(1)"},
	}.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("engine: check: %w", err)
	}
	defer store.CloseDB(db)
	db.SetMaxOpenConns(1)
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil || version == 0 {
		if err = store.Locked("read the schema version of "+path, err); errors.Is(err, store.ErrDatabaseLocked) {
			// Another program's exclusive lock, held for the whole busy
			// timeout: said now. Left to Open, it waited the busy
			// timeout again (mnemo check took 20 s to fail, other
			// commands 10 s; readme54).
			return nil, fmt.Errorf("engine: check: %w", err)
		}
		// Not a database SQLite can read, or one without mnemo's schema:
		// Open reports it (ErrDatabaseCorrupt, with the advice).
		return nil, ctx.Err()
	}
	found, err := store.IntegrityCheck(ctx, db, full, maxDatabaseProblems)
	if err != nil || len(found) > 0 || !full {
		return found, err
	}
	found, err = digestFindings(ctx, msgstore.New(db))
	if err != nil && ctx.Err() == nil {
		return []string{err.Error()}, nil
	}
	return found, err
}
