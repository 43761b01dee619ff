package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The files of a database that is gone. A data directory whose mnemo.db
// is missing while its write-ahead log or its indexes are there (a copy
// of a directory a crash left, made without the database file; a
// database file moved or deleted alone) holds the only copy of that
// database's text in them: the log's commits, the index's snapshots. An
// open that creates a new database would lose them: SQLite deletes a log
// beside a database of no pages, and an index of the old database must
// not serve the new one. So Open keeps them, as a salvage keeps a
// damaged database's (salvage.go): moved aside, under
// mnemo.db.damaged-<UTC time>-wal, -shm and -index, which KeptDamaged
// lists (mnemo check, an erasure's answer), and says so
// (Engine.KeptOrphans; a warning in the log).

// keepOrphans moves aside the write-ahead log (with its -shm) and the
// index directory of dir when dir holds no database file, before the
// open creates one; it returns the paths they are kept under (none when
// the database file exists or neither is there). An empty log holds
// nothing and is left to SQLite.
func keepOrphans(dir string, now time.Time) ([]string, error) {
	db := filepath.Join(dir, DatabaseFile)
	if _, err := os.Lstat(db); !errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	g := goneFilesOf(dir)
	var moves [][2]string // from, suffix
	if g.walBytes > 0 {
		moves = append(moves, [2]string{db + "-wal", "-wal"})
		if g.shm {
			moves = append(moves, [2]string{db + "-shm", "-shm"})
		}
	}
	if g.index {
		moves = append(moves, [2]string{filepath.Join(dir, indexDir), keptIndexSuffix})
	}
	if len(moves) == 0 {
		return nil, nil
	}
	base := orphanBase(db, now)
	kept := make([]string, 0, len(moves))
	for _, m := range moves {
		if err := os.Rename(m[0], base+m[1]); err != nil {
			return kept, fmt.Errorf("engine: %s is missing: keep %s, of the database that was there: %w", db, filepath.Base(m[0]), err)
		}
		kept = append(kept, base+m[1])
	}
	syncDir(dir)
	return kept, nil
}

// orphanBase is the name the files of a database that is gone are kept
// under, suffixed: db.damaged-<UTC time>, with a counter when a file of
// that name, or of one of the suffixed names, exists.
func orphanBase(db string, at time.Time) string {
	return damagedName(db, at, orphanFree)
}

// orphanFree reports whether no file is named base, nor base with a
// suffix keepOrphans gives.
func orphanFree(base string) bool {
	for _, s := range []string{"", "-wal", "-shm", keptIndexSuffix} {
		if _, err := os.Lstat(base + s); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	return true
}

// KeptOrphans returns the paths under which this Open kept the write-ahead
// log, its -shm and the index directory of a database that was gone
// (mnemo.db missing beside them): <dir>/mnemo.db.damaged-<UTC time>-wal,
// -shm, -index, the ones there were. They may hold the only copy of that
// database's text; KeptDamaged lists them until they are deleted. The
// database Open created is new and empty. Nil when Open kept none (and on
// Postgres).
func (e *Engine) KeptOrphans() []string { return e.orphans }

// warnOrphans logs the files keepOrphans kept, when any.
func (e *Engine) warnOrphans() {
	if len(e.orphans) > 0 {
		e.log.Warn("the data directory held no database file but the write-ahead log or the indexes of a database that was there: they are kept (they may hold the only copy of its text) and a new, empty database was created",
			"kept", e.orphans)
	}
}

// indexDir is the index directory (index/), relative to the data directory.
var indexDir = filepath.Dir(LexicalDir)

// goneFiles is what dir holds of a database beside no database file.
type goneFiles struct {
	walBytes int64 // the size of mnemo.db-wal, a regular file; 0: none, or empty (it holds nothing)
	shm      bool  // mnemo.db-shm is there
	index    bool  // the index directory is there
}

// goneFilesOf reports the files of a database in dir, whose database
// file is missing (keepOrphans, notDataDir).
func goneFilesOf(dir string) goneFiles {
	var g goneFiles
	db := filepath.Join(dir, DatabaseFile)
	if fi, err := os.Lstat(db + "-wal"); err == nil && fi.Mode().IsRegular() {
		g.walBytes = fi.Size()
	}
	_, err := os.Lstat(db + "-shm")
	g.shm = err == nil
	if fi, err := os.Lstat(filepath.Join(dir, indexDir)); err == nil && fi.IsDir() {
		g.index = true
	}
	return g
}

// notDataDir is ErrNotDataDir's error for dir, whose database file's stat
// failed with err: a *GoneDatabaseError when the file does not exist but
// the write-ahead log or the index directory of a database that was there
// do, or when the file is a symbolic link to nothing.
func notDataDir(dir string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		g := goneFilesOf(dir)
		link := danglingLink(filepath.Join(dir, DatabaseFile))
		if g.walBytes > 0 || g.index || link != "" {
			return &GoneDatabaseError{Dir: dir, WALBytes: g.walBytes, Index: g.index, Link: link}
		}
	}
	return fmt.Errorf("%w: %s holds no %s (%v)", ErrNotDataDir, dir, DatabaseFile, errors.Unwrap(err))
}

// GoneDatabaseError is the refusal, matching ErrNotDataDir, of a data
// directory whose database file is missing while the write-ahead log (not
// empty) or the index directory of a database that was there are not:
// Open with Config.MustExist, Check, Backup and Salvage return it, so that
// a reader learns they are there before a write keeps them aside and
// creates a new, empty database (keepOrphans). Before, it was the plain
// "holds no mnemo.db", which said nothing of them.
//
// When mnemo.db is a symbolic link to a file that does not exist (Link:
// a volume not mounted, a file moved), every Open returns it, a write's
// too, and it also matches ErrDatabaseNotFile: the database may be whole
// where the link points, so nothing is kept aside or created (SQLite
// would create an empty database at the target), and the log beside the
// link, perhaps the only copy of its last commits, is left in place.
// Before, the reads said a write would create a new database and the
// write refused the link as a corrupt database, advising to delete the
// log.
type GoneDatabaseError struct {
	Dir      string // the data directory, absolute
	WALBytes int64  // the size of mnemo.db-wal; 0 when it is not there or empty
	Index    bool   // the index directory (index/) is there
	Link     string // the target of mnemo.db, a symbolic link to nothing; "" when mnemo.db is not a link
}

// Error names the directory, the files there (the log's size) and says to
// restore the database file before writing; with Link, it names the link
// and its target.
func (e *GoneDatabaseError) Error() string {
	var there []string
	if e.WALBytes > 0 {
		there = append(there, fmt.Sprintf("%s-wal (%d bytes)", DatabaseFile, e.WALBytes))
	}
	if e.Index {
		there = append(there, indexDir+"/")
	}
	verb, pron, obj := "is", "it", "it"
	if len(there) > 1 {
		verb, pron, obj = "are", "they", "them"
	}
	if e.Link != "" {
		s := fmt.Sprintf("%v: %s is a symbolic link to %s, which does not exist", ErrNotDataDir, filepath.Join(e.Dir, DatabaseFile), e.Link)
		if len(there) > 0 {
			s += fmt.Sprintf(", and the %s of the database %s beside it: %s may hold the only copy of its last commits", strings.Join(there, " and "), verb, pron)
		}
		return s + fmt.Sprintf("; make %s reachable again, or restore %s from a backup, before writing to %s (nothing is written while the link points to nothing)", e.Link, DatabaseFile, e.Dir)
	}
	return fmt.Sprintf("%v: %s holds no %s, but the %s of the database that was there %s: %s may hold the only copy of its text; restore %s from a backup before writing to %s (a write creates a new, empty database and keeps %s aside)",
		ErrNotDataDir, e.Dir, DatabaseFile, strings.Join(there, " and "), verb, pron, DatabaseFile, e.Dir, obj)
}

// Is matches ErrDatabaseNotFile when mnemo.db is a link to nothing (Link).
func (e *GoneDatabaseError) Is(target error) bool {
	return target == ErrDatabaseNotFile && e.Link != ""
}

// danglingLink returns the target of path when path is a symbolic link
// whose target does not exist, else "".
func danglingLink(path string) string {
	to, err := os.Readlink(path)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	return to
}

// Unwrap returns ErrNotDataDir.
func (e *GoneDatabaseError) Unwrap() error { return ErrNotDataDir }
