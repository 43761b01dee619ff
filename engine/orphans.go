package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	var moves [][2]string // from, suffix
	if fi, err := os.Lstat(db + "-wal"); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		moves = append(moves, [2]string{db + "-wal", "-wal"})
		if _, err := os.Lstat(db + "-shm"); err == nil {
			moves = append(moves, [2]string{db + "-shm", "-shm"})
		}
	}
	index := filepath.Join(dir, filepath.Dir(LexicalDir))
	if fi, err := os.Lstat(index); err == nil && fi.IsDir() {
		moves = append(moves, [2]string{index, keptIndexSuffix})
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
