package store

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/mnemo-go/mnemo/internal/filekind"
)

// WALNotFileError is returned by Open, before SQLite reads anything, when
// the database's write-ahead log (path + "-wal") or its wal-index (path +
// "-shm") exists but is not a regular file: a directory, a pipe, a device,
// a socket, or a symbolic link (never followed, whatever it points at).
// It is not a file SQLite wrote, and the database file itself is not at
// fault: move it aside and open again. Nothing was written, and no file's
// mode changed. (A -shm that is a directory let SQLite open the database
// read-only without a word: every write then failed with "attempt to
// write a readonly database"; a pipe or a link gave errors that did not
// name it.)
type WALNotFileError struct {
	// Log is the path of the file, as Open found it: the -wal, or the
	// -shm when Index is set.
	Log string
	// Index is set when the file is the wal-index (-shm), not the log.
	Index bool
	// Kind is filekind.Of's name of the file's kind ("symbolic link",
	// "directory", "pipe", "device", "socket", "special file").
	Kind string
	// Target is a symbolic link's target as stored in the link (not
	// resolved); "" for another kind.
	Target string
}

// Error says what the file is: "the write-ahead log P is a pipe, not a
// log SQLite wrote", "the write-ahead log P is a symbolic link (to T),
// not a log SQLite wrote; it is not followed", "the write-ahead log's
// index P is a directory, not an index SQLite wrote".
func (e *WALNotFileError) Error() string {
	what, wrote := "the write-ahead log", "a log"
	if e.Index {
		what, wrote = "the write-ahead log's index", "an index"
	}
	if e.Kind == "symbolic link" {
		return fmt.Sprintf("%s %s is a symbolic link (to %s), not %s SQLite wrote; it is not followed", what, e.Log, e.Target, wrote)
	}
	return fmt.Sprintf("%s %s is a %s, not %s SQLite wrote", what, e.Log, e.Kind, wrote)
}

// WALNotFile returns a *WALNotFileError when the write-ahead log of the
// database at path (path + "-wal") or its wal-index (path + "-shm")
// exists and is not a regular file (by Lstat: a link is not followed),
// the log first; else nil (none, regular files, or ones that cannot be
// examined: SQLite then says what is wrong).
func WALNotFile(path string) error {
	for _, suffix := range []string{"-wal", "-shm"} {
		name := path + suffix
		fi, err := os.Lstat(name)
		if err != nil || fi.Mode().IsRegular() {
			continue
		}
		e := &WALNotFileError{Log: name, Index: suffix == "-shm", Kind: filekind.Of(fi.Mode())}
		if fi.Mode()&fs.ModeSymlink != 0 {
			e.Target, _ = os.Readlink(name)
		}
		return e
	}
	return nil
}

// chmodRegular sets name's mode to perm when it is a regular file (by
// Lstat: never through a link, never a pipe's or a directory's); best
// effort.
func chmodRegular(name string, perm fs.FileMode) {
	if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() {
		_ = os.Chmod(name, perm)
	}
}
