package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// This file notices a database file replaced under the process that has
// it open: an operator who restores a backup by renaming it over mnemo.db
// (mv backup.db mnemo.db, or a cp that makes a new file) while mnemo
// serve runs. The process's open connections go on reading and writing
// the old file, which has no name any more, so every write acknowledged
// from then on is lost when it stops; a connection the pool opens later
// reads the new file through the old one's -wal and -shm. So at each
// reread of the record of damage (DamageMarkRecheck, damage_mark.go) the
// path is compared with the file Open opened (os.SameFile: device and
// inode), and on Linux this process's open descriptors are searched for
// the file's -wal removed or replaced (/proc/self/fd: "mnemo.db-wal
// (deleted)"). Once either was, every write transaction and autocommit
// write of the database is refused with ErrDatabaseReplaced, until the
// process ends: only a new Open reads the file now at the path. So is
// the opening of a new connection (watchConnector.Connect): one would
// read the new file through the old file's -wal and -shm, and an
// erasure's or a search's read, on a connection the pool opened for it,
// failed with "no such table" or read pages of both files (rev68); the
// connections already open go on reading the old file. A path
// with no file (rm mnemo.db) is not a replacement: the engine reports it
// (engine.UnlinkedDatabaseError) and its writes go on into the removed
// file, to be copied out.

// ErrDatabaseReplaced is returned (wrapped, naming what was replaced) by
// every write of a database Open opened once its file, or the -wal this
// process writes, was found replaced at its path by another file (or the
// -wal removed) while the database was open: see Replaced. Its text names
// engine, not this package: the engine re-exports this value
// (engine.ErrDatabaseReplaced), and users meet it there.
var ErrDatabaseReplaced = errors.New("engine: the database file was replaced while this process had it open")

// ErrWALReplaced is returned, wrapped, in place of ErrDatabaseReplaced
// when the -wal this process writes was removed from its path (or
// another file put there) and the database file itself was not replaced
// (Replaced says "mnemo.db-wal"). It matches ErrDatabaseReplaced too
// (errors.Is), as every write is refused alike; it is told apart because
// the file at the path is still this process's: the log it holds open
// has the writes not yet checkpointed, and a clean close checkpoints
// them into the file (then deletes the path's -wal and -shm), where a
// killed process loses them (readme68 F11). Re-exported as
// engine.ErrWALReplaced.
var ErrWALReplaced error = walReplacedError{}

// walReplacedError is ErrWALReplaced's type: a comparable value whose Is
// matches ErrDatabaseReplaced.
type walReplacedError struct{}

// Error implements error.
func (walReplacedError) Error() string {
	return "engine: the database file's write-ahead log (mnemo.db-wal) was removed or replaced while this process had it open"
}

// Is reports whether target is ErrDatabaseReplaced.
func (walReplacedError) Is(target error) bool { return target == ErrDatabaseReplaced }

// replacement is what readFile found replaced: what (Replaced's
// answer) and its sentinel, ErrWALReplaced when only the -wal was, else
// ErrDatabaseReplaced.
type replacement struct {
	what     string
	sentinel error
}

// Replaced returns what of db's file was found replaced while db was open
// (see ErrDatabaseReplaced): "mnemo.db" (the file's base name) when its
// path names another file than the one Open opened, "mnemo.db-wal" when
// the -wal this process holds open was removed from its path or replaced
// (Linux only), both joined by " and "; "" when neither (also for a
// database Open did not open). The paths are looked at again at most
// every DamageMarkRecheck; once found, it stays found.
func Replaced(db *sql.DB) string {
	v, ok := damages.Load(db)
	if !ok {
		return ""
	}
	d := v.(*damage)
	d.recheck()
	if r := d.replaced.Load(); r != nil {
		return r.what
	}
	return ""
}

// replacedError returns ErrDatabaseReplaced wrapped with what was
// replaced and what (the write) was refused, nil while nothing was.
func (d *damage) replacedError(what string) error {
	d.recheck()
	r := d.replaced.Load()
	if r == nil {
		return nil
	}
	return fmt.Errorf("store: %s refused: %w (%s replaced at %s)", what, r.sentinel, r.what, filepath.Dir(d.path))
}

// readFile looks whether d's file or its -wal was replaced at its path,
// and keeps the answer once it was.
func (d *damage) readFile() {
	if d.file == nil || d.replaced.Load() != nil {
		return
	}
	var what []string
	sentinel := ErrWALReplaced
	if fi, err := os.Stat(d.path); err == nil && !os.SameFile(fi, d.file) {
		what = append(what, filepath.Base(d.path))
		sentinel = ErrDatabaseReplaced
	}
	if d.walUnlinked() {
		what = append(what, filepath.Base(d.path)+"-wal")
	}
	if len(what) == 0 {
		return
	}
	d.replaced.CompareAndSwap(nil, &replacement{what: strings.Join(what, " and "), sentinel: sentinel})
}

// walUnlinked reports whether this process holds open the -wal that was
// at d's path and has been removed from it (renamed over or deleted). It
// looks first at the descriptor the last look found holding the -wal at
// its path (d.walFD, heldWAL.at): two stats where heldUnlinked reads the
// link of every descriptor the process has open (250–400 ms a look with
// 10,000 open, each engine every DamageMarkRecheck; BENCHMARKS.md); only
// when that descriptor no longer holds the file at the path does it read
// them all, and remembers what it found.
func (d *damage) walUnlinked() bool {
	path := d.path + "-wal"
	if h := d.walFD.Load(); h != nil && h.at(path) {
		return false
	}
	unlinked, h := heldUnlinked(path)
	d.walFD.Store(h)
	return unlinked
}

// heldWAL is a descriptor of this process that held the -wal at its
// path when heldUnlinked read it: its number and the file it held.
type heldWAL struct {
	fd   string // its name under /proc/self/fd
	file os.FileInfo
}

// at reports whether h's descriptor still holds the file it held and that
// file is still at path. Then no other descriptor of the process holds a
// -wal removed from path: one opened before h was read would have been
// found by that read (heldUnlinked), and one opened since opened the file
// at path, h's. False (read them all) when the descriptor was closed or
// now holds another file, or path names another file or none.
func (h *heldWAL) at(path string) bool {
	held, err := os.Stat(filepath.Join(procFD, h.fd)) // the open file, removed or not
	if err != nil || !os.SameFile(held, h.file) {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, held)
}

// procFD lists Linux's open descriptors of this process, each a link to
// what it holds.
const procFD = "/proc/self/fd"

// heldUnlinked reports whether this process holds open a file that was
// at path and has been removed from it (renamed over or deleted): Linux's
// /proc/self/fd names it "path (deleted)", path with its symbolic links
// resolved (the kernel's name of it: a data directory given through a
// link, --dir /data/mnemo with /data a link, was never found so, rev68);
// and a descriptor that holds the file at path, nil when none does.
// False and nil where /proc/self/fd cannot be read (not Linux: there a
// removed -wal is not noticed, only a replaced database file, os.SameFile).
func heldUnlinked(path string) (bool, *heldWAL) {
	ents, err := os.ReadDir(procFD)
	if err != nil {
		return false, nil
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(real, filepath.Base(path))
	}
	var live *heldWAL
	for _, ent := range ents {
		to, err := os.Readlink(filepath.Join(procFD, ent.Name()))
		switch {
		case err != nil:
		case to == path+" (deleted)":
			return true, nil
		case to == path && live == nil:
			if fi, err := os.Stat(filepath.Join(procFD, ent.Name())); err == nil {
				live = &heldWAL{fd: ent.Name(), file: fi}
			}
		}
	}
	return false, live
}
