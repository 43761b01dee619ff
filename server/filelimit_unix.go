//go:build unix

package server

import "syscall"

// fileLimit is the process's limit on open files (RLIMIT_NOFILE's soft
// limit, which Go raises to the hard one at start), or 0 when unknown.
func fileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
