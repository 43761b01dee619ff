package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/store"
)

// diskFull returns err as an ErrNoSpace error naming the disk of dir
// (the data directory) and saying what to do when it is a write refused
// for lack of room (noSpace); any other err, and one that is an
// ErrNoSpace already, unchanged. A full disk is no damage: SQLite rolls
// the refused transaction back, and the derived indexes catch up from
// mnemo.db once there is room.
func diskFull(dir string, err error) error {
	if err == nil || dir == "" || errors.Is(err, ErrNoSpace) {
		return err
	}
	switch {
	case tooLarge(dir, err): // file_too_large.go
		return &fullError{dir: dir, err: err, tooLarge: true}
	case noSpace(err):
		return &fullError{dir: dir, err: err}
	}
	return err
}

// IsNoSpace reports whether err is for lack of room on a disk: it matches
// ErrNoSpace, or it is ENOSPC or EDQUOT from the file system, SQLite's
// SQLITE_FULL ("database or disk is full") or its shared-memory file that
// could not grow. For errors of calls that do not wrap ErrNoSpace
// themselves: a working.Memory's writes (those of a Memory the engine
// built, WorkingMemory's and OpenWorkingMemory's, do), a program's own
// SQL.
func IsNoSpace(err error) bool {
	return err != nil && (errors.Is(err, ErrNoSpace) || noSpace(err))
}

// fullError is diskFull's error: it matches ErrNoSpace and err.
type fullError struct {
	dir string
	err error
	// tooLarge: a file reached the largest size allowed (EFBIG), not the
	// disk its end.
	tooLarge bool
}

func (f *fullError) Error() string {
	if f.tooLarge {
		return fmt.Sprintf("%v on the disk holding %s: a file there reached the largest size allowed (the process's file size limit, ulimit -f, or the file system's: 4 GiB on FAT32), not damage: raise the limit, or move the data directory to another file system (mnemo backup DEST), and run the command again; nothing committed is lost (%v)", ErrNoSpace, f.dir, f.err)
	}
	return fmt.Sprintf("%v on the disk holding %s (a full disk, not damage): free space there and run the command again; nothing committed is lost (%v)", ErrNoSpace, f.dir, f.err)
}

func (f *fullError) Unwrap() []error { return []error{ErrNoSpace, f.err} }

// fullCause is the error a fullError in err's chain wraps (its advice
// left out, for an error that gives its own); err itself otherwise.
func fullCause(err error) error {
	var f *fullError
	if errors.As(err, &f) {
		return f.err
	}
	return err
}

// openReadShared is a KeepOutbox open's second try at mnemo.db after the
// first found no room (full, its error): on a disk full to its last page
// SQLite could not create the database's shared memory (-shm, 32 KiB),
// which a clean close deletes, and every read command failed until about
// 32 KiB were free. It opens the file read-only with the WAL index in the
// process's memory (store.OpenReadShared: safe beside a writer in another
// process); the command reads as always, and a write it tries fails. When
// that open fails too, full is returned.
func openReadShared(ctx context.Context, cfg Config, dir string, full error) (*sql.DB, error) {
	db, err := store.OpenReadShared(ctx, filepath.Join(dir, DatabaseFile))
	if err != nil {
		if cfg.Logger != nil {
			cfg.Logger.Warn("no room for the database's shared memory, and it could not be read without it", "err", err)
		}
		return nil, full
	}
	if cfg.Logger != nil {
		cfg.Logger.Info("no room on the disk for the database's shared memory (mnemo.db-shm, 32 KiB): reading it without, read-only", "dir", dir)
	}
	return db, nil
}
