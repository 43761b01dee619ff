package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// UnlinkedDatabaseError is Ping's error (matching ErrNotDataDir, as
// GoneDatabaseError) when mnemo.db was removed from the data directory
// while the engine holds it open (rm under mnemo serve): the engine's
// open connections still read and write the removed file, whose data
// lives until the process exits. FD is the path under /proc of one open
// descriptor of it ("" when none was found: not Linux). Before, a
// connection the pool opened later created a new, empty mnemo.db (mode
// 0644) beside the old WAL, and the engine reported the file damaged,
// advising salvage.
type UnlinkedDatabaseError struct {
	Path string // mnemo.db's path
	FD   string // /proc/PID/fd/N of the removed file, or ""
}

// Error names the file and the process, and says to copy the removed
// file out through FD before the process stops.
func (e *UnlinkedDatabaseError) Error() string {
	s := fmt.Sprintf("%v: %s was removed while this process (pid %d) holds it open; its data, the writes acknowledged since included, is readable only through this process until it stops",
		ErrNotDataDir, e.Path, os.Getpid())
	if e.FD != "" {
		return s + fmt.Sprintf(": copy it out first, with its write-ahead log, the acknowledged writes not yet checkpointed (cp %s %s.recovered && cp %s-wal %s.recovered-wal; "+
			"then stop the server, check the copy with mnemo check and put it back as %s)", e.FD, e.Path, e.Path, e.Path, filepath.Base(e.Path))
	}
	return s + ": copy it out through the process's open file, with its -wal beside it, before stopping it"
}

// Is matches ErrNotDataDir.
func (e *UnlinkedDatabaseError) Is(target error) bool { return target == ErrNotDataDir }

// unlinkedDatabase returns an *UnlinkedDatabaseError when the engine's
// SQLite database file no longer exists at its path (one stat); nil
// otherwise and on Postgres.
func (e *Engine) unlinkedDatabase() error {
	if e.onPostgres() || e.dir == "" {
		return nil
	}
	path := filepath.Join(e.dir, DatabaseFile)
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return &UnlinkedDatabaseError{Path: path, FD: openDeleted(path)}
}

// openDeleted returns /proc/self's descriptor path, with this process's
// pid, of the removed file path ("path (deleted)"), or "".
func openDeleted(path string) string {
	dir := "/proc/self/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, ent := range ents {
		to, err := os.Readlink(filepath.Join(dir, ent.Name()))
		if err == nil && strings.TrimSuffix(to, " (deleted)") == path && to != path {
			return fmt.Sprintf("/proc/%d/fd/%s", os.Getpid(), ent.Name())
		}
	}
	return ""
}
