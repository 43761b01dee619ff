//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mnemo-go/mnemo/engine"
)

// removeCreated removes the data directory made[0], which this command
// created, and the ancestors it created with it (made, deepest first, as
// missingDirs lists them; each only while empty), once the command's
// engine is closed. It leaves them when another process may have opened
// the directory since: it removes only while holding the directory's lock
// (an exclusive flock on engine.LockFile, taken without waiting) and
// finding this process still named in it (every open rewrites it).
func removeCreated(made []string) {
	if len(made) == 0 {
		return
	}
	f, err := os.Open(filepath.Join(made[0], engine.LockFile))
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	var h engine.LockHolder
	if b, err := os.ReadFile(f.Name()); err != nil || json.Unmarshal(b, &h) != nil || h.PID != os.Getpid() {
		return
	}
	if os.RemoveAll(made[0]) == nil {
		removeMade(made[1:])
	}
}
