package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemo-go/mnemo/internal/filekind"
)

// A backup writes its copy into a staging directory beside its
// destination, .NAME.backup-<random> (os.MkdirTemp), and renames it to
// NAME when complete. A backup killed meanwhile (SIGKILL, a power cut)
// leaves the directory behind, a copy of the whole database each time.
// So a running backup holds a lock file inside it, stagingLock, locked
// with flock from just after the directory is made until it is renamed or
// removed; the kernel releases that lock when the process ends, however it
// ends. The next backup to the same parent directory removes every
// staging directory whose lock is free (removeStaleStaging), and never one
// a running backup holds.

// stagingLock is the name of a backup's lock file in its staging
// directory. It is removed before the directory becomes the backup.
const stagingLock = "mnemo-backup.lock"

// stagingInfix is in the name of every backup staging directory:
// .NAME.backup-<random>.
const stagingInfix = ".backup-"

// stageBackup removes the staging directories in dest's parent that no
// running backup holds (removeStaleStaging: their names are returned),
// then makes dest's staging directory and holds its lock (holder written
// into it); the caller removes the lock file before the rename and closes
// lock once the directory is renamed or removed. Where a lock says nothing
// (locksHeld false) there is no lock file, and lock is nil.
func stageBackup(dest string, holder LockHolder) (tmp string, lock *os.File, removed []string, err error) {
	parent := filepath.Dir(dest)
	removed = removeStaleStaging(parent)
	tmp, err = os.MkdirTemp(parent, "."+filepath.Base(dest)+stagingInfix+"*")
	if err != nil {
		return "", nil, removed, err
	}
	if !locksHeld {
		return tmp, nil, removed, nil
	}
	lock, err = lockStaging(filepath.Join(tmp, stagingLock), holder)
	if err != nil {
		os.RemoveAll(tmp)
		return "", nil, removed, err
	}
	return tmp, lock, removed, nil
}

// lockStaging creates the lock file path, locks it and writes holder into
// it. The file is made and locked under another name (path + ".new") and
// renamed to path once locked (flock holds the file, not its name): a
// backup cleaning the same parent (removeIfStale) never finds path there
// unlocked, which it would take for a killed backup's and remove with the
// directory, failing this backup.
func lockStaging(path string, holder LockHolder) (*os.File, error) {
	fresh := path + ".new"
	f, err := filekind.OpenLock(fresh)
	if err != nil {
		return nil, err
	}
	if stagingLockHook != nil {
		stagingLockHook()
	}
	free, err := tryLock(f)
	if err == nil && !free {
		err = fmt.Errorf("%s is locked by another process", fresh) // a new directory: not expected
	}
	if err == nil {
		b, _ := json.Marshal(holder)
		_, err = f.Write(append(b, '\n'))
	}
	if err == nil {
		err = os.Rename(fresh, path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// stagingLockHook, when set (tests), is called in lockStaging between
// making the lock file and locking it.
var stagingLockHook func()

// removeStaleStaging removes the staging directories of backups in parent
// that are no longer running and returns their names: directories (not
// links) named .NAME.backup-* holding a regular stagingLock file that no
// process holds locked, removed while this one holds it. A staging
// directory without the file (one being made this instant, one a backup
// left while renaming it, or one left by a mnemo before the lock file) is
// left alone. Nothing is removed where tryLock cannot see another
// process's lock (locksHeld). Best effort.
func removeStaleStaging(parent string) []string {
	if !locksHeld {
		return nil
	}
	found, _ := filepath.Glob(filepath.Join(parent, ".*"+stagingInfix+"*"))
	var removed []string
	for _, dir := range found {
		if removeIfStale(dir) {
			removed = append(removed, filepath.Base(dir))
		}
	}
	return removed
}

// removeIfStale removes the staging directory dir when its lock file is
// free, holding the lock meanwhile, and reports whether it did.
func removeIfStale(dir string) bool {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return false
	}
	path := filepath.Join(dir, stagingLock)
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|filekind.NoFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if free, err := tryLock(f); err != nil || !free {
		return false
	}
	// A backup that finished removed its lock file before renaming the
	// directory and released the lock after: the file locked here must
	// still be the one in dir.
	held, err := f.Stat()
	if err != nil {
		return false
	}
	if now, err := os.Lstat(path); err != nil || !os.SameFile(held, now) {
		return false
	}
	return os.RemoveAll(dir) == nil
}

// backupStagedHook, when set (tests), is called with the staging
// directory once the copy in it is complete, before it is renamed: a
// test's child process blocks there to be killed mid-backup.
var backupStagedHook func(staging string)
