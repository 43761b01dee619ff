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
// start. It is removed by ClearDamageMark: a full integrity check that
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

// DamageMarked returns the record of damage that Open found beside db's
// file (ReadDamageMark), nil when it found none, after ClearDamageMark, and
// for a database Open did not open.
func DamageMarked(db *sql.DB) *DamageMark {
	v, ok := damages.Load(db)
	if !ok {
		return nil
	}
	return v.(*damage).mark.Load()
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
	removed, err := RemoveDamageMark(d.path)
	if err == nil {
		d.mark.Store(nil)
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
