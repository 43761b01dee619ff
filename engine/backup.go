package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mnemo-go/mnemo/internal/filekind"
	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
)

// BackupOptions tunes Backup. The zero value copies the database alone.
type BackupOptions struct {
	// Files names other files of the data directory to copy into the
	// backup beside the database, when present (a missing one is skipped):
	// plain names, no path separator. The CLI gives its memory
	// configuration, mnemo.json. nil: none.
	Files []string
}

// BackupResult describes a backup Backup wrote.
type BackupResult struct {
	Dest          string   `json:"dest"`          // the new data directory, an absolute path
	DatabaseBytes int64    `json:"databaseBytes"` // the size of its mnemo.db in bytes
	Messages      int64    `json:"messages"`      // the messages it holds
	Files         []string `json:"files"`         // the other files copied (BackupOptions.Files present); [] when none
	// RemovedStaging names the staging directories (.NAME.backup-*) of
	// backups no longer running, killed before they finished, that this
	// backup removed from dest's parent directory;
	// nil when there were none.
	RemovedStaging []string `json:"removedStaging,omitempty"`
}

// Backup writes a new data directory dest holding a copy of the data
// directory cfg.Dir as of one commit: its mnemo.db, written by SQLite's
// VACUUM INTO in one read transaction, and the files opts.Files names.
// It waits on no lock: it runs beside an open engine (mnemo serve) as on
// an idle directory, holding the directory's lock only when it is free
// and only while it checks the write-ahead log (ErrWALDamaged when it is
// damaged), never writes the directory's database (its reader may
// create an empty -wal and a -shm beside it, as any open does) and sees
// only committed writes: every thread holds a prefix of its messages,
// seqs 1..last_seq.
//
// The derived indexes are not copied: the first Open of dest rebuilds them
// from the database (the stored embeddings included, so nothing is embedded
// again). The copy has no free page, so text an erasure removed before the
// backup does not travel; text erased after it stays in the backup until
// the backup is deleted. A damaged database kept by a salvage
// (mnemo.db.damaged-*) is not copied.
//
// dest must not exist, or be an empty directory: anything else is refused
// with ErrBackupExists, and nothing is overwritten. A dest that is cfg.Dir
// or lies inside it (through a symbolic link too) is a *ValidationError on
// dest, said before ErrBackupExists: mnemo reindex deletes what index/
// holds. Missing parents are created (0700). The copy is written to a directory .NAME.backup-* beside
// dest (0700, files 0600), checked (SQLite's quick_check), synced, and
// renamed to dest only when complete: an error, or ctx's end (then
// ctx.Err()), removes it and leaves no dest. While it runs the backup
// holds a lock file in it (flock); a process killed meanwhile leaves the
// directory, which names itself, and the next Backup to the same parent
// removes it (BackupResult.RemovedStaging), never one a running backup
// holds. No room on dest's disk:
// ErrNoSpace. On Postgres (cfg.Postgres): ErrBackupPostgres. A directory
// without a database: ErrNotDataDir; a database of 1 to 99 bytes:
// ErrDatabaseEmpty; a SQLite database at schema version 0: ErrNoSchema;
// one whose salvage was interrupted: ErrSalvageInterrupted.
func Backup(ctx context.Context, cfg Config, dest string, opts BackupOptions) (*BackupResult, error) {
	if ctx == nil {
		return nil, ErrNilContext
	}
	if cfg.Postgres != "" {
		return nil, ErrBackupPostgres
	}
	dir, err := backupSource(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if err := backupWALSound(dir, &cfg); err != nil {
		return nil, err
	}
	for _, name := range opts.Files {
		if name == "" || strings.ContainsRune(name, os.PathSeparator) || name == "." || name == ".." || name == stagingLock {
			return nil, invalid(-1, "Files", "%q is not the name of a file of the data directory", name)
		}
	}
	if dest == "" {
		return nil, invalid(-1, "dest", "the backup's destination directory is required")
	}
	if dest, err = filepath.Abs(dest); err != nil {
		return nil, fmt.Errorf("engine: backup destination: %w", err)
	}
	if err := backupDestOutside(dir, dest); err != nil {
		return nil, err
	}
	if err := backupDestFree(dest); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("engine: backup: create %s: %w", parent, err)
	}
	tmp, lock, removed, err := stageBackup(dest, cfg.holder()) // backup_staging.go
	if err != nil {
		return nil, backupSpace(dest, fmt.Errorf("engine: backup: %w", err))
	}
	if lock != nil {
		defer lock.Close() // after the rename: a later backup never takes tmp for a dead one's
	}
	res, err := writeBackup(ctx, dir, tmp, opts.Files)
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && backupStagedHook != nil {
		backupStagedHook(tmp)
	}
	if err == nil && lock != nil {
		if err = os.Remove(filepath.Join(tmp, stagingLock)); err != nil {
			err = fmt.Errorf("engine: backup: %w", err)
		}
	}
	if err == nil {
		err = placeBackup(tmp, dest)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, backupSpace(dest, err)
	}
	res.Dest, res.RemovedStaging = dest, removed
	return res, nil
}

// backupSource returns the absolute path of the data directory dir after
// checking that it holds a database Backup can read.
func backupSource(dir string) (string, error) {
	if dir == "" {
		return "", invalid(-1, "Dir", "the data directory is required")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("engine: data directory %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(abs, DatabaseFile)); err != nil {
		return "", notDataDir(abs, err)
	}
	if err := notRegularDatabase(abs); err != nil { // engine.go
		return "", err
	}
	if err := databaseHeader(abs, true); err != nil { // db_header.go: as Open refuses it for a reading command
		return "", err
	}
	if err := checkSwap(abs); err != nil { // salvage_swap.go
		return "", err
	}
	return abs, nil
}

// backupWALSound returns ErrWALDamaged when dir's write-ahead log holds
// commits past a damaged frame and no process holds dir (its lock is
// free: the log is at rest, and no Open has kept and repaired it yet).
// While a process holds dir its Open has scanned the log already. A
// directory whose lock file cannot be written (read-only: a mounted
// snapshot) is scanned too when no process holds it (atRest).
func backupWALSound(dir string, cfg *Config) error {
	lock, err := lockDir(context.Background(), dir, cfg.holder(), -1) // no wait
	switch {
	case err == nil:
		defer lock.release()
	case errors.Is(err, ErrLocked) || !atRest(dir):
		return nil // held: its open scanned the log
	}
	// Holding the lock, no mnemo process can truncate the log: it is
	// mapped. At rest without it (read-only directory) a process could
	// take the directory and truncate the log meanwhile: it is read.
	path := filepath.Join(dir, DatabaseFile)
	d, err := store.DamagedWAL(path, lock != nil)
	if err != nil {
		return fmt.Errorf("engine: backup: %w", err)
	}
	if d == nil {
		return nil
	}
	open, then := "open the directory first", "back up again"
	if lock == nil { // not writable: an open there cannot keep or repair the log
		open, then = "the directory is not writable: copy it (cp -a DIR COPY) and open the copy", "back up the copy"
	}
	s := d.Scan
	if d.SetAside {
		// The backup's read would apply the valid prefix over the newer
		// pages mnemo.db holds (and its recovery rewrite the -shm that
		// says so): Open sets the log aside instead.
		prefix := "no frame"
		if s.Applied > 0 {
			prefix = fmt.Sprintf("frames 1-%d", s.Applied)
		}
		return fmt.Errorf("%w: %s-wal is damaged (%s), and its -shm says a checkpoint had copied frames through %d into %s already, past the log's valid prefix (%s): the backup's read would apply that prefix over newer pages, and rewrite the -shm that says so; %s (mnemo check: its open keeps the log as found, as %s-wal.damaged-<UTC time>, and sets it aside unapplied), then %s",
			ErrWALDamaged, path, damagedWhere(s), d.Checkpointed, DatabaseFile, prefix, open, DatabaseFile, then)
	}
	if !s.Lost() {
		// Damage in the log's last transaction, no valid -shm, and
		// mnemo.db holds pages newer than the prefix (store.DamagedWAL).
		return fmt.Errorf("%w: %s-wal is damaged (%s), no valid -shm says what %s holds, and it holds pages newer than the log's valid prefix: the backup's read would apply that prefix over them; %s (mnemo check: its open keeps a copy of %s as it is, as %s.before-wal-<UTC time>, before the prefix is applied), then %s",
			ErrWALDamaged, path, damagedWhere(s), DatabaseFile, open, DatabaseFile, DatabaseFile, then)
	}
	return fmt.Errorf("%w: %s-wal holds %d commits (%d frames) after the damage (frame %s) that SQLite would leave out of the backup; %s (mnemo check: its open keeps the log as found, as %s-wal.damaged-<UTC time>, repairs it when that is exact and says what is lost otherwise), then %s",
		ErrWALDamaged, path, s.NotAppliedCommits, s.NotApplied, joinInts(s.Damaged), open, DatabaseFile, then)
}

// damagedWhere says where the log scanned as s is damaged: "frame 7",
// "frames 7, 9", "its header" (only the header failed), or, for damage
// past its last valid commit (no frame of it is counted damaged), "after
// its last valid commit, frame N" ("before its first commit" for none).
func damagedWhere(s *store.WALScan) string {
	switch {
	case len(s.Damaged) == 1:
		return "frame " + joinInts(s.Damaged) + gapNote(s)
	case len(s.Damaged) > 1:
		return "frames " + joinInts(s.Damaged) + gapNote(s)
	case s.HeaderDamaged:
		return "its header"
	case s.LastCommit == 0:
		return "before its first commit"
	}
	return fmt.Sprintf("after its last valid commit, frame %d", s.LastCommit)
}

// atRest reports whether no process holds dir, whose lock file this
// process cannot open to write: the file is missing (every holder creates
// it), or a regular file whose flock a read-only open takes at once.
func atRest(dir string) bool {
	path := filepath.Join(dir, LockFile)
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	free, err := tryLock(f)
	if err != nil || !free {
		return false
	}
	unlock(f)
	return true
}

// backupDestFree returns ErrBackupExists unless dest is missing or an empty
// directory (not a link to one).
func backupDestFree(dest string) error {
	fi, err := os.Lstat(dest)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("engine: backup destination: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is a %s; name a new directory", ErrBackupExists, dest, filekind.Of(fi.Mode()))
	}
	ents, err := os.ReadDir(dest)
	if err != nil {
		return fmt.Errorf("engine: backup destination: %w", err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("%w: %s is a directory that is not empty (it holds %s); a backup never overwrites: name a new directory", ErrBackupExists, dest, ents[0].Name())
	}
	return nil
}

// backupDestOutside refuses a dest that is the data directory dir or lies
// inside it (through a symbolic link too), a *ValidationError on "dest":
// mnemo manages what lies there, and reindex deletes index/lexical and
// index/snapshots with whatever they hold.
func backupDestOutside(dir, dest string) error {
	if dest == dir || resolved(dest) == resolved(dir) {
		return invalid(-1, "dest", "%s is the data directory itself: name a directory outside it", dest)
	}
	if inside(dir, dest) || inside(resolved(dir), resolved(dest)) {
		return invalid(-1, "dest", "%s is inside the data directory %s, whose contents mnemo manages (mnemo reindex deletes what index/ holds): name a directory outside it", dest, dir)
	}
	return nil
}

// inside reports whether path is dir or lies under it (both absolute and clean).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolved returns the absolute path with the symbolic links of its
// longest existing prefix resolved (the rest appended as written).
func resolved(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// writeBackup copies dir's database (VACUUM INTO) and files into tmp,
// checks the copy and syncs it.
func writeBackup(ctx context.Context, dir, tmp string, files []string) (*BackupResult, error) {
	src, err := store.OpenReadOnly(filepath.Join(dir, DatabaseFile))
	if err != nil {
		return nil, fmt.Errorf("engine: backup: %w", err)
	}
	copyPath := filepath.Join(tmp, DatabaseFile)
	err = createEmpty(copyPath)
	if err == nil {
		err = store.VacuumInto(ctx, src, copyPath)
	}
	store.CloseDB(src)
	if err != nil {
		if store.IsCorrupt(err) {
			err = fmt.Errorf("%w: %w", ErrDatabaseCorrupt, err)
		}
		return nil, fmt.Errorf("engine: backup: %w", err)
	}
	res, err := verifyBackup(ctx, copyPath)
	if err != nil {
		return nil, err
	}
	res.Files = []string{}
	for _, name := range files {
		copied, err := copyConfigFile(filepath.Join(dir, name), filepath.Join(tmp, name))
		if err != nil {
			return nil, fmt.Errorf("engine: backup: copy %s: %w", name, err)
		}
		if copied {
			res.Files = append(res.Files, name)
		}
	}
	return res, syncFile(copyPath)
}

// verifyBackup runs SQLite's quick_check on the copy at path and counts its
// messages.
func verifyBackup(ctx context.Context, path string) (*BackupResult, error) {
	db, err := store.OpenReadOnly(path)
	if err != nil {
		return nil, fmt.Errorf("engine: backup: %w", err)
	}
	defer store.CloseDB(db)
	found, err := store.IntegrityCheck(ctx, db, false, maxDatabaseProblems)
	if err == nil && len(found) > 0 {
		err = fmt.Errorf("%w: the copy fails SQLite's quick_check: %s", ErrDatabaseCorrupt, strings.Join(found, "; "))
	}
	if err != nil {
		return nil, fmt.Errorf("engine: backup: %w", err)
	}
	n, err := msgstore.New(db).CountMessages(ctx)
	if err != nil {
		return nil, fmt.Errorf("engine: backup: count messages: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("engine: backup: %w", err)
	}
	return &BackupResult{DatabaseBytes: fi.Size(), Messages: n}, nil
}

// placeBackup syncs the complete copy tmp and renames it to dest. An empty
// directory dest is removed first (os.Rename refuses an existing
// directory); one that gained entries meanwhile is refused, as is a dest
// that appears between the two steps.
func placeBackup(tmp, dest string) error {
	syncDir(tmp) // salvage.go
	if fi, err := os.Lstat(dest); err == nil && fi.IsDir() {
		if err := os.Remove(dest); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %s was written to while the backup ran; name a new directory (%w)", ErrBackupExists, dest, err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		if errors.Is(err, os.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return fmt.Errorf("%w: %s was written to while the backup ran; name a new directory", ErrBackupExists, dest)
		}
		return fmt.Errorf("engine: backup: %w", err)
	}
	syncDir(filepath.Dir(dest))
	return nil
}

// backupSpace returns err as an ErrNoSpace error naming dest's disk when it
// is for lack of room; any other err unchanged.
func backupSpace(dest string, err error) error {
	if err == nil || !noSpace(err) { // salvage_space.go
		return err
	}
	return fmt.Errorf("%w on the disk holding %s: the partial copy was removed and the data directory is untouched; make room and back up again (%w)", ErrNoSpace, filepath.Dir(dest), err)
}

// createEmpty creates the empty file path, 0600, which must not exist.
func createEmpty(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// copyConfigFile copies the regular file from to the new file to (0600, synced).
// It reports false, and copies nothing, when from does not exist. A
// symbolic link (or another kind of file) is refused without its target
// being read: Lstat before the open, which a FIFO would block, and
// O_NOFOLLOW for a link made meanwhile.
func copyConfigFile(from, to string) (bool, error) {
	fi, err := os.Lstat(from)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, notRegularConfig(from, fi.Mode())
	}
	in, err := os.OpenFile(from, os.O_RDONLY|filekind.NoFollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(from); lerr == nil && !fi.Mode().IsRegular() {
			return false, notRegularConfig(from, fi.Mode())
		}
		return false, err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil || !fi.Mode().IsRegular() {
		if err == nil {
			err = notRegularConfig(from, fi.Mode())
		}
		return false, err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	return true, errors.Join(err, out.Close())
}

// notRegularConfig is copyConfigFile's refusal of a file that is not
// regular: "P is a symbolic link, not a regular file".
func notRegularConfig(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is a %s, not a regular file", path, filekind.Of(m))
}

// syncFile flushes the file at path to disk.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("engine: backup: %w", err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("engine: backup: sync %s: %w", path, err)
	}
	return nil
}
