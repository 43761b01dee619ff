package store

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/mnemo-go/mnemo/internal/filekind"
)

// WALNotFileError is returned by Open, before SQLite reads anything, when
// the database's write-ahead log (path + "-wal") exists but is not a
// regular file: a directory, a pipe, a device, a socket, or a symbolic
// link (never followed, whatever it points at). It is not a log SQLite
// wrote, and the database file itself is not at fault: move the -wal
// aside and open again. Nothing was written, and no file's mode changed.
type WALNotFileError struct {
	// Log is the write-ahead log's path, as Open found it.
	Log string
	// Kind is filekind.Of's name of the file's kind ("symbolic link",
	// "directory", "pipe", "device", "socket", "special file").
	Kind string
	// Target is a symbolic link's target as stored in the link (not
	// resolved); "" for another kind.
	Target string
}

// Error says what the log is: "the write-ahead log P is a pipe, not a log
// SQLite wrote", "the write-ahead log P is a symbolic link (to T), not a
// log SQLite wrote; it is not followed".
func (e *WALNotFileError) Error() string {
	if e.Kind == "symbolic link" {
		return fmt.Sprintf("the write-ahead log %s is a symbolic link (to %s), not a log SQLite wrote; it is not followed", e.Log, e.Target)
	}
	return fmt.Sprintf("the write-ahead log %s is a %s, not a log SQLite wrote", e.Log, e.Kind)
}

// WALNotFile returns a *WALNotFileError when the write-ahead log of the
// database at path (path + "-wal") exists and is not a regular file (by
// Lstat: a link is not followed), else nil (no log, a regular file, or
// one that cannot be examined: SQLite then says what is wrong).
func WALNotFile(path string) error {
	log := path + "-wal"
	fi, err := os.Lstat(log)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	e := &WALNotFileError{Log: log, Kind: filekind.Of(fi.Mode())}
	if fi.Mode()&fs.ModeSymlink != 0 {
		e.Target, _ = os.Readlink(log)
	}
	return e
}

// chmodRegular sets name's mode to perm when it is a regular file (by
// Lstat: never through a link, never a pipe's or a directory's); best
// effort.
func chmodRegular(name string, perm fs.FileMode) {
	if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() {
		_ = os.Chmod(name, perm)
	}
}
