package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// This file opens a WAL database for reading on a disk with no room for
// its shared memory. SQLite reads a WAL-mode database through path-shm
// (the WAL index, 32 KiB), which the last connection to close deletes; a
// connection that finds none creates it and grows it page by page, and on
// a disk full to its last page that fails (SQLITE_IOERR_SHMSIZE, 4874):
// every command failed there until about 32 KiB were free (flake53).

// OpenReadShared opens the SQLite database at path for reading only when
// the disk has no room for its shared memory (path-shm): it creates path-shm
// and path-wal empty when they are missing (no data pages: an inode each)
// and opens the file with mode=ro and readonly_shm=1, so that SQLite opens
// the -shm read-only and, finding it empty, reads the WAL into the
// process's memory instead (its "unreliable shared memory" path, SQLite
// 3.22+). That path holds the WAL's read lock 0 on path-shm, which keeps a
// writer in another process from checkpointing under the read, and each
// read transaction uses the writer's shared memory once one has set it up:
// reads stay consistent beside a writer (immutable=1 would not). Every
// write fails (SQLITE_READONLY). The database must be at SchemaVersion
// (no migration is possible): a newer one is ErrSchemaTooNew, an older one
// an error saying it needs a writer's open. The caller closes it.
func OpenReadShared(ctx context.Context, path string) (*sql.DB, error) {
	if err := WALNotFile(path); err != nil { // walkind.go
		return nil, err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		f, err := os.OpenFile(path+suffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("store: open %s for reading: create %s: %w", path, path+suffix, err)
		}
		if f != nil {
			f.Close()
		}
	}
	dsn := fileDSN(path, url.Values{
		"mode":         {"ro"},
		"readonly_shm": {"1"},
		"_pragma":      {fmt.Sprintf("busy_timeout(%d)", BusyTimeoutMillis), "foreign_keys(1)"},
	})
	db, err := openWatched(dsn, path, nil) // damage.go
	if err != nil {
		return nil, fmt.Errorf("store: open %s for reading: %w", path, err)
	}
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		CloseDB(db)
		return nil, fmt.Errorf("store: open %s for reading: read schema version: %w", path, err)
	}
	switch {
	case v > SchemaVersion:
		CloseDB(db)
		return nil, fmt.Errorf("%w (file version %d, this build %d): %s", ErrSchemaTooNew, v, SchemaVersion, path)
	case v < SchemaVersion:
		CloseDB(db)
		return nil, fmt.Errorf("store: open %s for reading: schema version %d needs migrating to %d, which writes", path, v, SchemaVersion)
	}
	if err := foreignSchema(ctx, db, v); err != nil {
		CloseDB(db)
		return nil, err
	}
	return db, nil
}
