package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

// A salvage writes, in the data directory, a copy of the damaged mnemo.db
// (and its -wal) and the new database, whose WAL holds all of it until
// the copy's one transaction is checkpointed into it: at its peak it needs
// about 3.4 times the size of the damaged files (TestSalvageDiskFull: 2.7
// MiB free were enough for 0.8 MiB, 2.69 were not), then room for the
// rebuilt indexes. A write
// that finds no room fails the salvage; before the swap nothing was
// changed (the staging directory is removed), after it the salvaged
// database is in place and the damaged one kept (TestSalvageDiskFull).

// noSpace reports whether err is a write refused for lack of room: ENOSPC
// or EDQUOT from the file system (also as bleve's text), SQLITE_FULL, or SQLite failing to grow
// its shared-memory file (SQLITE_IOERR_SHMSIZE), which is how a full
// tmpfs shows when a connection opens.
func noSpace(err error) bool {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || recall.NoSpace(err) {
		return true
	}
	const sqliteFull, sqliteIOErrShmSize = 13, 4874
	return store.ResultCode(err) == sqliteFull || store.ExtendedCode(err) == sqliteIOErrShmSize
}

// spaceError returns err as an ErrNoSpace error saying what is left to do
// when it is for lack of room; any other err unchanged. kept is where the
// damaged database is kept once the salvaged one is in place ("" before
// the swap).
func spaceError(dir, kept string, err error) error {
	if err == nil || !noSpace(err) {
		return err
	}
	err = fullCause(err) // disk_full.go: this error says what to do
	if marked, _ := readMarker(dir); kept == "" && marked != "" {
		return fmt.Errorf("%w on the disk holding %s: the swap of the salvaged database was cut short (the damaged one is whole as %s); make room and run salvage again to finish it (%w)",
			ErrNoSpace, dir, filepath.Base(marked), err)
	}
	if kept != "" {
		return fmt.Errorf("%w on the disk holding %s: the salvaged database is in place and the damaged one kept as %s; make room, then run reindex (%w)",
			ErrNoSpace, dir, filepath.Base(kept), err)
	}
	return fmt.Errorf("%w on the disk holding %s: nothing was changed; a salvage needs free room of about 4 times the size of %s and its -wal (%s): make room and run salvage again (%w)",
		ErrNoSpace, dir, DatabaseFile, mib(damagedSize(dir)), err)
}

// damagedSize is the size in bytes of dir's mnemo.db and its -wal.
func damagedSize(dir string) int64 {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(filepath.Join(dir, DatabaseFile+suffix)); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// mib formats n bytes as MiB, one decimal.
func mib(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
