//go:build unix

package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// TestDatabasePipe: a mnemo.db that is a FIFO is refused by Open with
// ErrDatabaseNotFile, named in the words mnemo ingest uses for the same
// kind of file (internal/filekind): "mnemo.db is a pipe". It said "is a
// named pipe", and ingest "the pipe F".
func TestDatabasePipe(t *testing.T) {
	dir := closedDir(t, "")
	p := filepath.Join(dir, engine.DatabaseFile)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := engine.Open(context.Background(), engine.Config{Dir: dir, MustExist: true})
	if want := p + " is a pipe"; !errors.Is(err, engine.ErrDatabaseNotFile) || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("open: %v, want ErrDatabaseNotFile ending %q", err, want)
	}
}

// TestWALNotRegularFile: a mnemo.db-wal (or mnemo.db-shm) that is a pipe, a directory or a
// symbolic link is refused by Open, Salvage, Backup and CheckFile with ErrWALNotFile
// naming it and its kind (a link: its target), and not with
// ErrDatabaseCorrupt: mnemo.db is sound (the advice is to move the -wal
// aside, not to restore mnemo.db). Before, the pipe and the directory
// were ErrDatabaseNotFile ("restore mnemo.db from a backup"), and a link
// SQLite's bare "unable to open database file (14)"; and CheckFile, which
// reads read-only without store.Open's examination, passed all three.
func TestWALNotRegularFile(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, log string)
	}{
		{"pipe", "is a pipe", func(t *testing.T, log string) {
			if err := syscall.Mkfifo(log, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
		{"directory", "is a directory", func(t *testing.T, log string) {
			if err := os.Mkdir(log, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"link", "is a symbolic link (to /nowhere/log)", func(t *testing.T, log string) {
			if err := os.Symlink("/nowhere/log", log); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		for _, suffix := range []string{"-wal", "-shm"} {
			t.Run(tc.name+suffix, func(t *testing.T) { walNotRegularFile(t, suffix, tc.want, tc.make) })
		}
	}
}

// walNotRegularFile makes dir's mnemo.db + suffix (-wal or -shm) with mk
// and checks what Open, Salvage, Backup and CheckFile say
// (TestWALNotRegularFile). A -shm's error is ErrWALIndexNotFile (and
// ErrWALNotFile) and begins with the index's wording, not the log's: it
// began "the write-ahead log is not a regular file" though the log was
// sound.
func walNotRegularFile(t *testing.T, suffix, want string, mk func(t *testing.T, log string)) {
	ctx := context.Background()
	dir := closedDir(t, "")
	log := filepath.Join(dir, engine.DatabaseFile+suffix)
	if err := os.Remove(log); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	mk(t, log)
	index := suffix == "-shm"
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, engine.ErrWALNotFile) || errors.Is(err, engine.ErrDatabaseCorrupt) || errors.Is(err, engine.ErrDatabaseNotFile) || !strings.Contains(err.Error(), log+" "+want) {
			t.Fatalf("%s: %v, want ErrWALNotFile (not ErrDatabaseCorrupt) saying %q", what, err, log+" "+want)
		}
		if errors.Is(err, engine.ErrWALIndexNotFile) != index || strings.Contains(err.Error(), "the write-ahead log is not a regular file") == index ||
			strings.Contains(err.Error(), "the write-ahead log's index (mnemo.db-shm) is not a regular file") != index {
			t.Fatalf("%s: %v, want ErrWALIndexNotFile and the index's wording only for the -shm (this is %s)", what, err, suffix)
		}
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, MustExist: true})
	if err == nil {
		e.Close()
	}
	check("open", err)
	_, err = engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{Force: true})
	check("salvage", err)
	_, err = engine.Backup(ctx, engine.Config{Dir: dir}, filepath.Join(t.TempDir(), "backup"), engine.BackupOptions{})
	check("backup", err)
	check("checkfile", checkFileBounded(t, dir, log))
}

// checkFileBounded runs engine.CheckFile on dir and returns its error. A
// CheckFile that opened the pipe log for reading would wait for a writer
// and never return: after a minute the test fails, and a writer opened on
// log lets it end.
func checkFileBounded(t *testing.T, dir, log string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- engine.CheckFile(context.Background(), engine.Config{Dir: dir}, engine.CheckOptions{}) }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Errorf("checkfile: still running after a minute (waiting on the pipe %s)", log)
		if w, err := os.OpenFile(log, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			defer w.Close()
		}
		return <-done
	}
}
