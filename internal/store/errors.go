package store

import (
	"errors"

	"modernc.org/sqlite"
)

// ErrSchemaTooNew is returned by Open when the database was written by a newer
// version of mnemo (its schema version is above SchemaVersion). The file is not
// modified. pgstore returns it too, for a Postgres schema.
//
// Its text names engine, not this package: the engine re-exports this
// value (engine.ErrSchemaTooNew), and users meet it there.
var ErrSchemaTooNew = errors.New("engine: database schema is newer than this build")

// ErrNoSchema is returned by Open when the database holds tables but not
// mnemo's: tables of another program at schema version 0, or a schema
// version above 0 without mnemo's threads table (its tables were
// dropped). Nothing is migrated or written.
var ErrNoSchema = errors.New("store: the database holds no mnemo schema")

// ErrFreeListDamaged is matched by ClearFreeSpace's error when the
// database file's free list does not hold together: a trunk page out of
// the file or met twice, a trunk listing more leaves than a page holds, a
// leaf out of the file or listed twice, or a number of free-list pages
// other than the header's count. Such an error matches
// ErrDatabaseCorrupt too: the file is damaged, and ClearFreeSpace changed
// nothing. VACUUM, which writes the file anew from its rows, does not
// read the old free list and leaves a sound one.
var ErrFreeListDamaged = errors.New("store: the database file's free list is damaged")

// freeListError is ClearFreeSpace's error for a damaged free list: it
// matches ErrFreeListDamaged and ErrDatabaseCorrupt.
type freeListError struct{ detail string }

func (e freeListError) Error() string { return ErrFreeListDamaged.Error() + ": " + e.detail }
func (e freeListError) Is(target error) bool {
	return target == ErrFreeListDamaged || target == ErrDatabaseCorrupt
}

// SQLite's primary result codes for a damaged database file
// (https://sqlite.org/rescode.html).
const (
	sqliteCorrupt = 11 // SQLITE_CORRUPT: the database disk image is malformed
	sqliteNotADB  = 26 // SQLITE_NOTADB: the file is not a database
)

// ErrDatabaseCorrupt is matched by the error of any statement, row read
// or commit of a database Open opened that SQLite answered with
// SQLITE_CORRUPT or SQLITE_NOTADB (a damaged page met): the error keeps
// SQLite's text and its *sqlite.Error (IsCorrupt). Its text names engine,
// not this package: the engine re-exports this value
// (engine.ErrDatabaseCorrupt), and users meet it there.
var ErrDatabaseCorrupt = errors.New("engine: database file is corrupt")

// corruptError is SQLite's error of a damaged file, as it is, that also
// matches ErrDatabaseCorrupt.
type corruptError struct{ err error }

func (e corruptError) Error() string        { return e.err.Error() }
func (e corruptError) Unwrap() error        { return e.err }
func (e corruptError) Is(target error) bool { return target == ErrDatabaseCorrupt }

// Postgres's SQLSTATEs of damaged data (class XX, internal error:
// https://www.postgresql.org/docs/current/errcodes-appendix.html).
const (
	pgDataCorrupted  = "XX001" // data_corrupted: a damaged table page ("invalid page in block")
	pgIndexCorrupted = "XX002" // index_corrupted: a damaged index
)

// IsCorrupt reports whether err (from Open, or any query) is SQLite's
// report of a damaged database file: SQLITE_CORRUPT or SQLITE_NOTADB, in
// any of their extended forms (a truncated mnemo.db fails Open so); or
// Postgres's report of damaged data: SQLSTATE XX001 data_corrupted or
// XX002 index_corrupted, read through a SQLState() string method (pgx's
// *pgconn.PgError has one), so this package does not link pgx.
func IsCorrupt(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		state := pg.SQLState()
		return state == pgDataCorrupted || state == pgIndexCorrupted
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary code of an extended one
	return code == sqliteCorrupt || code == sqliteNotADB
}

// ResultCode returns SQLite's primary result code of err (0 when err is
// not an error of SQLite's): 11 SQLITE_CORRUPT, 19 SQLITE_CONSTRAINT, …
// (https://sqlite.org/rescode.html).
func ResultCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0
	}
	return se.Code() & 0xff
}

// ExtendedCode returns SQLite's extended result code of err (0 when err
// is not an error of SQLite's): 4874 SQLITE_IOERR_SHMSIZE, …
// (https://sqlite.org/rescode.html#extrc).
func ExtendedCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0
	}
	return se.Code()
}
