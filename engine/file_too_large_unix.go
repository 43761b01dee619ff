//go:build unix

package engine

import "syscall"

// fileSizeLimit is the process's file size limit in bytes (RLIMIT_FSIZE,
// ulimit -f); 0 when there is none.
func fileSizeLimit() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &r); err != nil || r.Cur > 1<<62 { // RLIM_INFINITY is all ones
		return 0
	}
	return int64(r.Cur)
}
