//go:build unix

package filekind

import "syscall"

// NoFollow, or-ed into an open's flags, makes it fail on a symbolic link
// (O_NOFOLLOW): OpenLock and mnemo backup's copy of mnemo.json use it.
const NoFollow = syscall.O_NOFOLLOW
