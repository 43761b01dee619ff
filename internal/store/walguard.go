package store

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"
)

// WALDamage is what Open found in the database's write-ahead log before
// SQLite read it: valid commits after a damaged frame, which SQLite's
// recovery stops at and drops without an error (then the first close
// checkpoints and deletes the log). Open keeps the log as found and, when
// the repair is exact (WALScan.Exact), rewrites the log's checksums so
// that SQLite applies every commit; otherwise it opens with what SQLite
// recovers.
type WALDamage struct {
	// Log is the write-ahead log (the database's path + "-wal").
	Log string
	// Kept is the copy of the log as Open found it:
	// <database>-wal.damaged-<UTC time>[-N], mode 0600, never overwritten.
	// Its -shm, when there was one (a regular file), is kept beside it as
	// <database>-shm.damaged-<same suffix>. Either may hold text a later
	// erasure removes from the database: no erasure reaches them.
	Kept string
	// Scan is what the log held.
	Scan *WALScan
	// Repaired is set when the log was rewritten so that SQLite applied
	// every commit (Scan.Exact): nothing was lost. Unset, the commits of
	// Scan.NotApplied frames are not in the database (SetAside aside).
	Repaired bool
	// SetAside is set when the log's -shm said a checkpoint had copied
	// frames past those SQLite's recovery would apply into the database
	// file already (Checkpointed): applying the log's valid prefix would
	// have written older page versions over newer ones. The log was not
	// applied at all: once kept, it and its -shm were removed and the
	// database file opened alone. Frames Checkpointed+1..MxFrame are then
	// not in the database (none when the two are equal: nothing lost);
	// Scan's NotApplied counts do not apply.
	SetAside bool
	// Checkpointed is the -shm's nBackfill (frames the database file
	// holds) and MxFrame its last committed frame; both 0 unless SetAside.
	Checkpointed, MxFrame int
	// LostCommits counts the commits among frames Checkpointed+1..MxFrame
	// (WALScan.CommitsAfter); 0 unless SetAside.
	LostCommits int
	// Before is set when no valid -shm told what the database file held
	// and either the log could not be repaired, or its damage left no
	// commit after it (Scan.Lost false: nothing else is set, and no log
	// is kept) while the file held pages newer than the log's valid
	// prefix (a checkpoint had copied the damaged last transaction): the
	// copy of the database file as it was before SQLite applied that
	// prefix, <database>.before-wal-<UTC time>[-N] (mode 0600, synced,
	// never overwritten), so that nothing committed is lost whichever of
	// the two is newer. "" otherwise.
	Before string
}

// BeforeWALPattern is the file-name pattern (filepath.Match) of the
// copies of the database file named db that Open keeps before applying a
// damaged log's prefix (WALDamage.Before): db + ".before-wal-*".
func BeforeWALPattern(db string) string { return db + ".before-wal-*" }

// KeptWALPattern is the file-name pattern (filepath.Match) of the copies
// of damaged write-ahead logs that Open keeps beside the database file
// named db: db + "-wal.damaged-*".
func KeptWALPattern(db string) string { return db + "-wal.damaged-*" }

// WALDamageOf returns what Open found damaged in db's write-ahead log, or
// nil when it found nothing (or did not open db).
func WALDamageOf(db *sql.DB) *WALDamage {
	v, ok := damages.Load(db)
	if !ok {
		return nil
	}
	return v.(*damage).wal
}

// guardWAL scans path's write-ahead log, when there is one, before SQLite
// reads it. When its -shm says a checkpoint copied frames past those
// SQLite's recovery would apply into the database file (Checkpointed), it
// keeps the log and -shm as found and removes them (setAside): the valid
// prefix would roll pages back. Else, when commits lie past a damaged
// frame, and are not in the database file already (a checkpoint copied
// them before the crash), it keeps the log (and its -shm) as found, then
// repairs the log when the repair is exact; when it is not, and no valid
// -shm says what the database file holds, it keeps a copy of the database
// file too (keepBefore). When the damage left no commit after it (in the
// log's last transaction), SQLite's recovery drops nothing the log still
// vouches for, but a checkpoint may have copied that transaction into the
// database file: without a valid -shm, when the file holds pages newer
// than the valid prefix (newerInFile), it keeps the copy of the database
// file alone (needsBefore). An error means the evidence could not be
// kept, or the repair written: Open then fails rather than let SQLite
// drop the commits.
//
// The log is mapped, not read onto the heap (a log stays at its largest
// size after checkpoints: hundreds of MB at every open otherwise); the
// copy is written from the mapping, and only a repair copies the bytes.
// Mapping is safe here because the caller holds the data directory's lock
// (engine.Open) or owns the file (the salvage's new database): no mnemo
// process writes or truncates the log meanwhile. A foreign process that
// truncated it anyway (sqlite3 on the file) makes the open fail with an
// error (withLog), not a crash.
func guardWAL(path string) (d *WALDamage, err error) {
	log := path + "-wal"
	err = withLog(log, true, func(b []byte) error {
		scan := ScanWAL(b)
		aside, known := asideOf(path, path+"-shm", b, scan)
		if aside != nil {
			d, err = setAside(path, b, aside)
			return err
		}
		if !scan.Lost() {
			if !needsBefore(path, b, scan, known) {
				return nil
			}
			d = &WALDamage{Log: log, Scan: scan}
			if d.Before, err = keepBefore(path); err != nil {
				return fmt.Errorf("store: the write-ahead log %s is damaged after its last valid commit (frame %d), no valid -shm says what %s holds, and it holds pages newer than the log's valid prefix: a copy of it could not be kept before the prefix is applied: %w", log, scan.LastCommit, path, err)
			}
			return nil
		}
		if backfilled(path, scan, b) {
			return nil
		}
		d = &WALDamage{Log: log, Scan: scan}
		var err error
		if d.Kept, err = keepWAL(path, b); err != nil {
			return fmt.Errorf("store: the write-ahead log %s is damaged (%d commits past frame %d would not be applied) and could not be kept: %w", log, scan.NotAppliedCommits, scan.Applied, err)
		}
		if !scan.Exact {
			if !known {
				if d.Before, err = keepBefore(path); err != nil {
					return fmt.Errorf("store: the write-ahead log %s is damaged (kept as %s), and no valid -shm says what %s holds: a copy of it could not be kept before the log's valid prefix is applied: %w", log, d.Kept, path, err)
				}
			}
			return nil
		}
		if err := repairInPlace(log, scan, b); err != nil {
			return fmt.Errorf("store: repair the damaged write-ahead log %s (kept as %s): %w", log, d.Kept, err)
		}
		d.Repaired = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// GuardReadOnly is what a read-only open of the database at path (one
// that neither writes the database file nor the log, but whose SQLite
// recovery rewrites the -shm) needs first, while the caller holds the
// data directory's lock: the evidence the -shm holds is gone after it.
// When the -shm says a checkpoint copied frames past those the log's
// valid prefix holds (Checkpointed), the log and -shm are kept and set
// aside as Open does (the database file is then read alone); when no
// valid -shm says what the database file holds, and the log holds
// commits past damage that cannot be repaired exactly (or damage left no
// commit after it but the file holds pages newer than the prefix), a copy
// of the database file is kept (WALDamage.Before) before anything
// applies the prefix.
// The log itself is neither repaired nor rewritten. nil when neither.
func GuardReadOnly(path string) (d *WALDamage, err error) {
	log := path + "-wal"
	err = withLog(log, true, func(b []byte) error {
		scan := ScanWAL(b)
		aside, known := asideOf(path, path+"-shm", b, scan)
		if aside != nil {
			d, err = setAside(path, b, aside)
			return err
		}
		if !needsBefore(path, b, scan, known) {
			return nil
		}
		d = &WALDamage{Log: log, Scan: scan}
		if d.Before, err = keepBefore(path); err != nil {
			return fmt.Errorf("store: the write-ahead log %s is damaged, and no valid -shm says what %s holds: a copy of it could not be kept before the log's valid prefix is read: %w", log, path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// needsBefore reports whether a copy of the database file at path is to
// be kept before the valid prefix of its log b (scanned as scan) is
// applied (WALDamage.Before): no valid -shm says what the file holds
// (known is false, Checkpointed's), and either the log holds commits past
// damage that no exact repair applies and that are not in the file
// already (backfilled), or the damage left no commit after it (in the
// log's last transaction) but the file holds pages newer than the prefix
// (newerInFile: a checkpoint had copied that transaction). A log whose
// damage left no commit after it, and whose prefix the file does not
// hold newer pages than, loses nothing to SQLite's recovery: no copy.
func needsBefore(path string, b []byte, scan *WALScan, known bool) bool {
	switch {
	case known:
		return false
	case scan.Lost():
		return !scan.Exact && !backfilled(path, scan, b)
	}
	return newerInFile(path, scan, b) // walnewer.go
}

// asideOf is the account of the log b of the database at path (scanned
// as scan) that is to be set aside, unapplied: the -shm at shm says a
// checkpoint copied frames past those the log's valid prefix holds into
// the database file (Checkpointed). Nil otherwise; known is
// Checkpointed's (a valid -shm carrying the log's salts). Nothing is
// kept or removed.
func asideOf(path, shm string, b []byte, scan *WALScan) (d *WALDamage, known bool) {
	ckpt, mx, aside, known := Checkpointed(shm, scan) // walshm.go
	if !aside {
		return nil, known
	}
	return &WALDamage{Log: path + "-wal", Scan: scan, SetAside: true, Checkpointed: ckpt, MxFrame: mx, LostCommits: scan.CommitsAfter(b, ckpt, mx)}, true
}

// setAside keeps the log b of the database at path (and its -shm), then
// removes both, so that SQLite opens the database file alone: d (asideOf)
// says a checkpoint copied frames through d.Checkpointed into it, past
// those the log's valid prefix holds.
func setAside(path string, b []byte, d *WALDamage) (*WALDamage, error) {
	var err error
	if d.Kept, err = keepWAL(path, b); err != nil {
		return nil, fmt.Errorf("store: the write-ahead log %s is damaged, and its -shm says %s holds frames through %d already: the log could not be kept before it is set aside: %w", d.Log, path, d.Checkpointed, err)
	}
	if err := removeLog(path); err != nil {
		return nil, fmt.Errorf("store: set aside the damaged write-ahead log %s (kept as %s; %s holds frames through %d): move it and %s-shm aside, then open again: %w", d.Log, d.Kept, path, d.Checkpointed, path, err)
	}
	return d, nil
}

// keepBefore copies the database file at path to a new file
// path.before-wal-<UTC time>[-N] (writeNew: O_EXCL, 0600, synced;
// streamed, not read onto the heap) and returns its path.
func keepBefore(path string) (string, error) {
	src, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	base := path + ".before-wal-" + time.Now().UTC().Format("20060102T150405Z")
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		err := writeNew(name, src) // ErrExist before anything is read
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		syncDirOf(name)
		return name, nil
	}
}

// DamagedWAL scans the write-ahead log of the database at path, changing
// nothing, and says what Open would find in it: a log to set aside
// unapplied (WALDamage.SetAside, with Checkpointed, MxFrame and
// LostCommits: its -shm says a checkpoint copied frames past the log's
// valid prefix into the database file, so applying that prefix would
// roll pages back), commits past a damaged frame that are not in the
// database file already (what Open keeps and repairs), or damage with no
// commit after it while no valid -shm tells and the database file holds
// pages newer than the log's valid prefix (Scan.Lost false: what Open
// keeps a WALDamage.Before copy for); Kept, Repaired and Before are
// unset. nil otherwise (no log, not a regular file, sound).
// Read it only while no process has the database open: a log being
// written may read torn. held says the caller holds the data directory's
// lock (no process can truncate the log meanwhile): the log is then
// mapped, not read onto the heap; unheld, it is read (a mapping of a file
// another process truncates faults). An error means the log could not be
// read.
func DamagedWAL(path string, held bool) (d *WALDamage, err error) {
	err = withLog(path+"-wal", held, func(b []byte) error {
		scan := ScanWAL(b)
		var known bool
		if d, known = asideOf(path, path+"-shm", b, scan); d != nil {
			return nil
		}
		if scan.Lost() && !backfilled(path, scan, b) || !scan.Lost() && needsBefore(path, b, scan, known) {
			d = &WALDamage{Log: path + "-wal", Scan: scan}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// ScanKeptWAL scans the kept copy of a damaged write-ahead log at name
// (KeptWALPattern), mapped: copies are written once (O_EXCL) and never
// rewritten. An error means it could not be read.
func ScanKeptWAL(name string) (scan *WALScan, err error) {
	err = withLog(name, true, func(b []byte) error {
		scan = ScanWAL(b)
		return nil
	})
	return scan, err
}

// withLog calls fn with the bytes of the file name, a write-ahead log,
// when it is a non-empty regular file (Lstat: not through a link); fn is
// not called otherwise. mapped maps the file (mapLog: none of it on the
// heap) and unmaps it once fn returns, so fn must not keep b; else the
// file is read. A page fault on the mapping (the file shrank while mapped)
// is returned as an error instead of killing the process.
func withLog(name string, mapped bool, fn func(b []byte) error) (err error) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil // none, or not a file: SQLite says what is wrong
	}
	var b []byte
	unmap := func() {}
	if mapped {
		b, unmap, err = mapLog(name)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return fmt.Errorf("store: read the write-ahead log %s: %w", name, err)
	}
	defer unmap()
	if len(b) == 0 {
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = fmt.Errorf("store: the write-ahead log %s shrank while it was read (a page past its new end faulted): another process truncated it", name)
		}
	}()
	return fn(b)
}

// RepairWAL repairs the write-ahead log of the database at path (a copy
// the caller owns, without its -shm: nothing is kept) so that SQLite
// reads what Open would. shm is the -shm of the log the copy was taken
// from (read only, not changed). When it says a checkpoint copied frames
// past the log's valid prefix into the database file (Checkpointed), the
// copy's log is removed, unapplied (WALDamage.SetAside, with
// Checkpointed, MxFrame and LostCommits): applying the prefix would roll
// pages back. Else, when the log holds commits past a damaged frame, it
// is repaired when the repair is exact (WALScan.Exact: Repaired), and
// left to SQLite otherwise (the caller keeps the original database file
// as it was, which stands for Open's WALDamage.Before). Log is path's
// log and Kept unset; nil when there is no log, it is empty or not a
// regular file, or it is sound. The log is mapped, as Open's is
// (withLog): the caller owns the file. engine.Salvage repairs its copy
// so; the damaged original is kept by the salvage.
func RepairWAL(path, shm string) (d *WALDamage, err error) {
	log := path + "-wal"
	err = withLog(log, true, func(b []byte) error {
		scan := ScanWAL(b)
		if d, _ = asideOf(path, shm, b, scan); d != nil {
			if err := removeLog(path); err != nil {
				return fmt.Errorf("store: set aside the damaged write-ahead log %s: %w", log, err)
			}
			return nil
		}
		if !scan.Lost() {
			return nil
		}
		d = &WALDamage{Log: log, Scan: scan}
		if !scan.Exact {
			return nil
		}
		if err := repairInPlace(log, scan, b); err != nil {
			return fmt.Errorf("store: repair the damaged write-ahead log %s: %w", log, err)
		}
		d.Repaired = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// repairInPlace writes scan's repair of the log b over the file log,
// once the repaired log checks.
func repairInPlace(log string, scan *WALScan, b []byte) error {
	fixed, err := scan.Repair(b)
	if err != nil {
		return err
	}
	if again := ScanWAL(fixed); again.Lost() || again.LastCommit != scan.LastCommit {
		return errors.New("the repaired log does not check") // a bug: the copy is kept
	}
	return writeInPlace(log, fixed)
}

// backfilled reports whether the commits scan found past the damage are
// in the database file at path already (WALScan.Backfilled): then what
// SQLite recovers is what the log's last commit left, and nothing is lost.
func backfilled(path string, scan *WALScan, b []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	return err == nil && scan.Backfilled(b, f, fi.Size())
}

// keepWAL writes b, path's write-ahead log as read, to a new file
// path-wal.damaged-<UTC time> (a counter appended when that name, or
// the -shm copy's, is taken), and copies path-shm beside it when that is
// a regular file; it returns the log copy's path.
func keepWAL(path string, b []byte) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for i := 1; ; i++ {
		suffix := ".damaged-" + stamp
		if i > 1 {
			suffix = fmt.Sprintf("%s-%d", suffix, i)
		}
		kept := path + "-wal" + suffix
		err := writeNew(kept, bytes.NewReader(b))
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if shm, ok := readShm(path + "-shm"); ok {
			err := writeNew(path+"-shm"+suffix, bytes.NewReader(shm))
			if errors.Is(err, fs.ErrExist) { // a stray -shm copy: both go to the next name
				os.Remove(kept)
				continue
			}
			if err != nil {
				return "", err
			}
		}
		syncDirOf(kept)
		return kept, nil
	}
}

// readShm reads the -shm file at name when it is a regular file (not a
// link: Lstat): a named pipe's open would block, and a link's target is
// none of the directory's. false when it is not, or cannot be read.
func readShm(name string) ([]byte, bool) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	b, err := os.ReadFile(name)
	return b, err == nil
}

// writeNew writes what r holds to a new file name (O_EXCL, 0600: never
// over another file or through a link) and syncs it; on an error the file
// is removed. An existing name is fs.ErrExist, before r is read.
func writeNew(name string, r io.Reader) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// writeInPlace writes b over the start of the existing file name and
// syncs it (b is as long as the file, or longer: a repair that filled a
// gap of missing bytes, WALScan.Gaps).
func writeInPlace(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDirOf flushes the entries of name's directory; best effort.
func syncDirOf(name string) {
	if d, err := os.Open(filepath.Dir(name)); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
