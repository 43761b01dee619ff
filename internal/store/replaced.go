package store

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
// (deleted)"), or moved to another name (the descriptor that held it
// holds it elsewhere: walUnlinked). Once either was, every write
// transaction and autocommit write of the database is refused with ErrDatabaseReplaced, until the
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
// when the -wal this process writes was removed from its path (deleted,
// or moved to another name; or another file put there) and the database
// file itself was not replaced (Replaced says "mnemo.db-wal"). It matches ErrDatabaseReplaced too
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
	return "engine: the database file's write-ahead log (mnemo.db-wal) was removed, moved or replaced while this process had it open"
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
// the -wal this process holds open was removed from its path (deleted or
// moved to another name) or replaced (Linux only), both joined by " and
// "; "" when neither (also for a database Open did not open). The paths are looked at again at most
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

// lookNow looks at once whether db's file or -wal was replaced (readFile),
// as Open returns it: the look remembers the descriptor that holds the
// -wal (walUnlinked), by which a -wal moved to another name before the
// first recheck is found too (it was not: the read of every descriptor
// does not tell a moved -wal from any other file).
func lookNow(db *sql.DB) {
	if v, ok := damages.Load(db); ok {
		v.(*damage).readFile()
	}
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
// at d's path and has been removed from it (renamed over, deleted or
// moved to another name). It looks first at the descriptor the last look
// found holding the -wal at its path (d.walFD, heldWAL.look): two stats
// where heldUnlinked reads the link of every descriptor the process has
// open (250–400 ms a look with 10,000 open, each engine every
// DamageMarkRecheck; BENCHMARKS.md); only when that descriptor no longer
// holds the file at the path does it read them all, and remembers what
// it found.
//
// The descriptor it remembered still holding its -wal, begun with a log's
// header, when the path names another file or none is the -wal moved to
// another name (mv mnemo.db-wal moved-wal), removed or renamed over:
// unlinked. The kernel names a moved file by its new name, not "(deleted)",
// and the process's writes go on into it, under a name no erasure, check
// or restart reads (readme71 F5). Still holding it with no log's header
// yet (a checkpoint emptied it), the descriptor is kept for the next look.
func (d *damage) walUnlinked() bool {
	path := d.path + "-wal"
	h, seen := d.walFD.Load(), walGone
	if h != nil {
		seen = h.look(path)
	}
	switch seen {
	case walAtPath:
		return false
	case walElsewhere:
		return true
	}
	unlinked, live := heldUnlinked(path)
	if live != nil || seen != walHeldEmpty {
		d.walFD.Store(live)
	}
	return unlinked
}

// heldWAL is a descriptor of this process that held the -wal at its
// path when heldUnlinked read it: its number and the file it held.
type heldWAL struct {
	fd   string // its name under /proc/self/fd
	file os.FileInfo
}

// walLook is what heldWAL.look found.
type walLook int

const (
	// walGone: the descriptor was closed or holds another file now (read
	// every descriptor).
	walGone walLook = iota
	// walAtPath: the descriptor holds the file it held, still at path.
	walAtPath
	// walElsewhere: the descriptor holds the file it held, a log (its
	// header's magic), and path names another file or none.
	walElsewhere
	// walHeldEmpty: as walElsewhere, but the file holds no log's header
	// (empty, or a file that is no log: the descriptor's number and the
	// file's inode both reused).
	walHeldEmpty
)

// look tells whether h's descriptor still holds the file it held and
// whether that file is still at path (walAtPath). Then no other
// descriptor of the process holds a -wal removed from path: one opened
// before h was read would have been found by that read (heldUnlinked),
// and one opened since opened the file at path, h's. Held but no longer
// at path, the file is the -wal moved, removed or renamed over
// (walElsewhere) when it begins with a log's magic: SQLite deletes its
// -wal only when its last connection closes it, and a descriptor number
// and inode number reused since (the next open's -shm) hold no log.
func (h *heldWAL) look(path string) walLook {
	fd := filepath.Join(procFD, h.fd)
	held, err := os.Stat(fd) // the open file, removed or not
	if err != nil || !os.SameFile(held, h.file) {
		return walGone
	}
	if fi, err := os.Stat(path); err == nil && os.SameFile(fi, held) {
		return walAtPath
	}
	if beginsAsWAL(fd, h.file) {
		return walElsewhere
	}
	return walHeldEmpty
}

// BeginsAsWAL reports whether the file at path begins with a SQLite
// write-ahead log's magic number (its first 4 bytes 0x377f0682 or
// 0x377f0683, big-endian); false for a shorter file or one that cannot be
// read.
func BeginsAsWAL(path string) bool { return beginsAsWAL(path, nil) }

// beginsAsWAL is BeginsAsWAL, false too when want is not nil and the file
// opened is not want: a descriptor closed, and its number reused, between
// look's stat and this open reads another file.
func beginsAsWAL(path string, want os.FileInfo) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if want != nil {
		if fi, err := f.Stat(); err != nil || !os.SameFile(fi, want) {
			return false
		}
	}
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return false
	}
	m := binary.BigEndian.Uint32(b[:])
	return m == walMagicLE || m == walMagicBE
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
