//go:build unix

package filekind

import "syscall"

// noFollow makes OpenLock's open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW
