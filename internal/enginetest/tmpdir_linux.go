package enginetest

import "syscall"

// memoryTempDir is the memory file system PrivateTempDir prefers on Linux,
// and memoryTempMinFree the room it must have left (bytes).
const (
	memoryTempDir     = "/dev/shm"
	memoryTempMinFree = 2 << 30
	tmpfsMagic        = 0x01021994 // statfs f_type of a tmpfs
)

// memoryTempBase returns /dev/shm when it is a tmpfs with at least
// memoryTempMinFree bytes free for this user, and false otherwise (no such
// directory, another file system, or too small: a container's 64 MB).
func memoryTempBase() (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(memoryTempDir, &st); err != nil {
		return "", false
	}
	if st.Type != tmpfsMagic || uint64(st.Bavail)*uint64(st.Bsize) < memoryTempMinFree {
		return "", false
	}
	return memoryTempDir, true
}
