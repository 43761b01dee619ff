package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mnemo-go/mnemo/internal/store"
)

// tooLarge reports whether err is a write refused because a file of the
// data directory dir reached the largest size allowed: EFBIG from the file
// system (the process's RLIMIT_FSIZE, ulimit -f; a FAT32 file's 4 GiB),
// also as bleve's text, or SQLite's write error (SQLITE_IOERR_WRITE) or
// shared-memory one (SQLITE_IOERR_SHMSIZE, the -shm file could not grow),
// which do not say why, while mnemo.db, its log or its -shm file is within
// tooLargeSlack of the file size limit. It was reported as "commit: disk
// I/O error (778)" with no advice, as if the disk were damaged (readme48
// F2); under ulimit -f 8 the first open's 4874 was told to free space
// (fix52).
func tooLarge(dir string, err error) bool {
	if errors.Is(err, syscall.EFBIG) || strings.Contains(err.Error(), syscall.EFBIG.Error()) {
		return true
	}
	const sqliteIOErrWrite, sqliteIOErrShmSize = 778, 4874
	if c := store.ExtendedCode(err); c != sqliteIOErrWrite && c != sqliteIOErrShmSize {
		return false
	}
	limit := fileSizeLimit() // file_too_large_unix.go
	if limit <= 0 {
		return false
	}
	for _, name := range []string{DatabaseFile, DatabaseFile + "-wal", DatabaseFile + "-shm"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size()+tooLargeSlack >= limit {
			return true
		}
	}
	return false
}

// tooLargeSlack is how far below the file size limit a file may end when
// a write past it was refused: SQLite writes a page (up to 64 KiB) or a
// log frame at a time; a spill of several is allowed for.
const tooLargeSlack = 1 << 20
