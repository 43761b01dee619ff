//go:build !unix

package engine

import "os"

// tryLock cannot lock on this platform: the lock file only records the
// holder, and a second process is not refused.
func tryLock(f *os.File) (bool, error) { return true, nil }

func unlock(f *os.File) error { return nil }

// locksHeld reports whether tryLock refuses a lock another process holds:
// not here, so a free lock says nothing of its holder.
const locksHeld = false
