//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStagingLockNoUnlockedWindow: a backup cleaning the parent directory
// at the moment another backup has made its staging directory's lock file
// but not locked it yet leaves that directory alone. Before, the lock file
// was made under its own name and locked after, and the cleaning backup
// took it for a killed backup's: it removed the directory, and the backup
// writing there failed.
func TestStagingLockNoUnlockedWindow(t *testing.T) {
	parent := t.TempDir()
	var removed []string
	stagingLockHook = func() { removed = removeStaleStaging(parent) }
	defer func() { stagingLockHook = nil }()
	tmp, lock, _, err := stageBackup(filepath.Join(parent, "b"), LockHolder{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if len(removed) != 0 {
		t.Fatalf("a cleaning backup removed %v while its lock file was being made", removed)
	}
	if _, err := os.Stat(filepath.Join(tmp, stagingLock)); err != nil {
		t.Fatalf("staging directory or its lock file gone: %v", err)
	}
	if got := removeStaleStaging(parent); len(got) != 0 {
		t.Fatalf("removed %v: its lock is held", got)
	}
	lock.Close()
	if got := removeStaleStaging(parent); len(got) != 1 {
		t.Fatalf("removed %v once its lock was released; want the staging directory", got)
	}
}
