package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// This file keeps what one process saw of a damaged database file for the
// next: the flag of damage.go lasts while the process runs, so a second
// process (a cron mnemo ingest, another mnemo serve) wrote into a file the
// first had found damaged until it met a bad page itself. When SQLite
// first reports the file damaged to a database Open opened, a record of it
// is written beside the file (DamageMarkSuffix), atomically; every later
// Open reads it (DamageMarked), and the engine refuses new data from the
// start; a process that runs on reads it again at most every
// DamageMarkRecheck, and so sees a record another process wrote or
// removed. It is removed by ClearDamageMark: a full integrity check that
// finds the file sound, or a salvage that replaced it.

// DamageMarkSuffix is what the record of a damaged database file adds to
// its path: mnemo.db.damage-seen. (Not mnemo.db.damaged-*: those are the
// damaged files a salvage keeps.)
const DamageMarkSuffix = ".damage-seen"

// DamageMark is the record of a database file found damaged: when SQLite
// first reported it, and its error's text (SQLite's message: no row's
// content).
type DamageMark struct {
	Seen  time.Time `json:"seen"`  // UTC, when the damage was first reported
	Error string    `json:"error"` // SQLite's error, e.g. "database disk image is malformed (11)"
	Path  string    `json:"-"`     // the record's own path (not stored)
}

// ReadDamageMark returns the record beside the database file at path, or
// nil when there is none. A record that cannot be parsed is still one
// (Error says so): a damaged file's record must not be lost to its own
// damage. Any other read error is returned.
func ReadDamageMark(path string) (*DamageMark, error) {
	at := path + DamageMarkSuffix
	b, err := os.ReadFile(at)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", at, err)
	}
	m := &DamageMark{}
	if json.Unmarshal(b, m) != nil {
		m = &DamageMark{Error: "(the record is unreadable)"}
	}
	m.Path = at
	return m, nil
}

// RecordDamage writes the record of damage beside the database file at
// path, as the first damage SQLite reports does (writeDamageMark): for a
// check that found the file damaged without an error (SQLite's integrity
// check answers its findings as rows). what says what was found; it must
// hold no row's content. A record already there is kept.
func RecordDamage(path string, seen time.Time, what string) error {
	if err := writeDamageMark(path, seen, errors.New(what)); err != nil {
		return fmt.Errorf("store: record the damage of %s: %w", path, err)
	}
	return nil
}

// writeDamageMark records err as the damage of the database file at path
// (path+DamageMarkSuffix, mode 0600): written to a temporary file,
// synced, renamed over the record and the directory synced, so a crash
// leaves the whole record or none. A record already there is kept (the
// first damage seen).
func writeDamageMark(path string, seen time.Time, err error) error {
	at := path + DamageMarkSuffix
	if _, serr := os.Lstat(at); serr == nil {
		return nil
	}
	b, _ := json.Marshal(DamageMark{Seen: seen.UTC(), Error: err.Error()})
	f, ferr := os.CreateTemp(filepath.Dir(path), filepath.Base(at)+".tmp-*")
	if ferr != nil {
		return ferr
	}
	_, werr := f.Write(append(b, '\n'))
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), at)
	}
	if werr != nil {
		os.Remove(f.Name())
		return werr
	}
	if d, derr := os.Open(filepath.Dir(path)); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// DamageMarkRecheck is how long a database Open opened goes at most
// without reading its record of damage again (DamageMarked): a record
// another process removed (a full check that found the file sound, an
// operator's deletion) or wrote (a damaged page it met) is seen by a
// long-lived process within it, where it was read at Open only. Reading
// it is one stat of a missing file (or a read of a small one), so a
// write pays that at most once per interval.
const DamageMarkRecheck = 2 * time.Second

// markEpoch is what damage.markRead counts from (time.Since is monotonic).
var markEpoch = time.Now()

// readMark reads the record of damage beside d's file into d.mark, now:
// a record that cannot be read is kept as one whose Error says why. The
// reads and the removal of the record (ClearDamageMark) take turns
// (markMu): a read begun before another wrote or removed the record, and
// stored after it, kept a stale answer until the next recheck (a write
// taken for DamageMarkRecheck after this process's own check recorded
// damage).
func (d *damage) readMark() {
	d.markMu.Lock()
	defer d.markMu.Unlock()
	m, err := ReadDamageMark(d.path)
	if readMarkHook != nil {
		readMarkHook()
	}
	if err != nil {
		m = &DamageMark{Error: err.Error(), Path: d.path + DamageMarkSuffix}
	}
	d.markRead.Store(int64(time.Since(markEpoch)))
	d.mark.Store(m)
}

// readMarkHook, when set (tests), runs in readMark between the read of
// the record and the store of what it read.
var readMarkHook func()

// recheck reads the record of damage again (readMark), and looks whether
// the file was replaced (readFile, replaced.go), when the last read is
// DamageMarkRecheck old, by one caller at a time.
func (d *damage) recheck() {
	last := d.markRead.Load()
	if now := int64(time.Since(markEpoch)); now-last >= int64(DamageMarkRecheck) && d.markRead.CompareAndSwap(last, now) {
		d.readMark()
		d.readFile()
	}
}

// currentMark returns d's record of damage, read again first when the
// last read is DamageMarkRecheck old (by one caller at a time), or else
// the damage a check of this process found and could not record
// (NoteDamage).
func (d *damage) currentMark() *DamageMark {
	d.recheck()
	if m := d.mark.Load(); m != nil {
		return m
	}
	return d.unrecorded.Load()
}

// DamageMarked returns the record of damage beside db's file
// (ReadDamageMark) as last read: at Open, then again at most every
// DamageMarkRecheck, so that a record removed or written by another
// process is seen; else the damage a check of this process found and
// could not record (NoteDamage: its Path is empty); nil when there was
// none, after ClearDamageMark, and for a database Open did not open.
func DamageMarked(db *sql.DB) *DamageMark {
	v, ok := damages.Load(db)
	if !ok {
		return nil
	}
	return v.(*damage).currentMark()
}

// NoteDamage records the damage a check of db's file (at path) found, as
// RecordDamage does (what says what was found; it must hold no row's
// content), and has DamageMarked answer it from now on: the record is
// read again at once, and when it could not be written (a full disk, a
// directory that refuses it) the damage is kept in memory until
// ClearDamageMark, so this process stores nothing new either way (it
// went on storing while the record could not be written: the next read
// found none). RecordDamage's error is returned; for a database Open did
// not open, only the record is written.
func NoteDamage(db *sql.DB, path string, seen time.Time, what string) error {
	err := RecordDamage(path, seen, what)
	if v, ok := damages.Load(db); ok {
		d := v.(*damage)
		if err != nil {
			d.unrecorded.Store(&DamageMark{Seen: seen.UTC(), Error: what + " (not recorded: " + err.Error() + ")"})
		}
		d.readMark()
	}
	return err
}

// ClearDamageMark removes the record of damage beside db's file, when
// db's connections have met no damage since Open (Damaged): the caller
// found the file sound (a full integrity check) or put a new one in its
// place. It reports whether a record was removed.
func ClearDamageMark(db *sql.DB) (bool, error) {
	v, ok := damages.Load(db)
	if !ok || Damaged(db) {
		return false, nil
	}
	d := v.(*damage)
	d.markMu.Lock()
	defer d.markMu.Unlock()
	removed, err := RemoveDamageMark(d.path)
	if err == nil {
		d.mark.Store(nil)
		d.unrecorded.Store(nil)
	}
	return removed, err
}

// RemoveDamageMark removes the record of damage beside the database file
// at path (a salvage that replaced the file); it reports whether there was
// one.
func RemoveDamageMark(path string) (bool, error) {
	err := os.Remove(path + DamageMarkSuffix)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: remove %s: %w", path+DamageMarkSuffix, err)
	}
	return true, nil
}
