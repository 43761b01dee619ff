package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/filekind"
)

// LockFile is the name of the data directory's lock file. An open Engine
// holds an exclusive lock on it (flock) and has written its holder (pid,
// command, since when) into it. The kernel releases the lock when the
// process ends, however it ends: a lock left by a dead process is taken
// over by the next Open, which rewrites the file.
const LockFile = "LOCK"

// DefaultLockWait is how long Open waits for another process to release
// the data directory before it returns a *LockedError.
const DefaultLockWait = time.Second

// LockHolder is what the lock file says about the process holding the data
// directory.
type LockHolder struct {
	// PID is the holder's process id.
	PID int `json:"pid"`
	// Command names the holder (Config.Holder, e.g. "mnemo serve").
	Command string `json:"command"`
	// Since is when it opened the directory.
	Since time.Time `json:"since"`
}

// LockedError is returned by Open when another process, or another open
// Engine of this process, holds the data directory. It matches ErrLocked.
// Holder is the zero value when the lock file could not be read.
type LockedError struct {
	// Dir is the data directory asked for.
	Dir string
	// Holder is what the lock file says of its holder.
	Holder LockHolder
}

// Error implements error: who holds the directory, since when, and what to
// do.
func (e *LockedError) Error() string {
	h := e.Holder
	if h.PID == 0 {
		return fmt.Sprintf("engine: data directory %s is in use by another process (see %s); wait for it to finish or stop it, then retry", e.Dir, filepath.Join(e.Dir, LockFile))
	}
	cmd := h.Command
	if cmd == "" {
		cmd = "unknown command"
	}
	if h.PID == os.Getpid() {
		// Another Engine of this process holds it: killing the pid named
		// would kill the caller.
		return fmt.Sprintf("engine: data directory %s is in use by process %d (%s) since %s, this process: another Engine has it open; use that Engine, or Close it before opening the directory again",
			e.Dir, h.PID, cmd, h.Since.Local().Format("2006-01-02 15:04:05 MST"))
	}
	return fmt.Sprintf("engine: data directory %s is in use by process %d (%s) since %s; wait for it to finish or stop it (kill %d), then retry",
		e.Dir, h.PID, cmd, h.Since.Local().Format("2006-01-02 15:04:05 MST"), h.PID)
}

// Unwrap returns ErrLocked.
func (e *LockedError) Unwrap() error { return ErrLocked }

// dirLock is the held lock of a data directory.
type dirLock struct {
	f *os.File
}

// lockDir takes the lock of dir, waiting up to wait (negative: not at all)
// while another process holds it, and no longer than ctx allows (ctx's
// error), and writes holder into the lock file.
func lockDir(ctx context.Context, dir string, holder LockHolder, wait time.Duration) (*dirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	if err := waitLock(ctx, f, dir, wait); err != nil {
		f.Close()
		return nil, err
	}
	b, _ := json.Marshal(holder)
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("engine: write lock file: %w", err)
	}
	return &dirLock{f: f}, nil
}

// openLockFile opens (creating it) the lock file at path, which the
// caller then truncates and writes its holder into: filekind.OpenLock,
// which refuses a symbolic link (a LOCK linked to /etc/passwd had it
// overwritten by every open) and what is not a regular file.
func openLockFile(path string) (*os.File, error) {
	f, err := filekind.OpenLock(path)
	var nr *filekind.NotRegularError
	switch {
	case errors.As(err, &nr):
		return nil, fmt.Errorf("engine: %w", err)
	case err != nil:
		return nil, fmt.Errorf("engine: open lock file: %w", err)
	}
	return f, nil
}

// waitLock takes the flock of dir's lock file f, trying every 50 ms for
// up to wait while another process holds it: a *LockedError when it still
// does, ctx's error when ctx ends first.
func waitLock(ctx context.Context, f *os.File, dir string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		ok, err := tryLock(f)
		switch {
		case err != nil:
			return fmt.Errorf("engine: lock %s: %w", f.Name(), err)
		case ok:
			return nil
		case time.Now().After(deadline):
			return &LockedError{Dir: dir, Holder: readHolder(f.Name())}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// CheckLock says whether Open could take the lock of the data directory
// cfg.Dir now, without taking it: it waits as Open does (cfg.LockWait)
// while another process holds the directory, then returns a *LockedError
// (ErrLocked) naming the holder if it still does, else nil, holding
// nothing. A directory or lock file that does not exist (or cannot be
// opened: Open says why) is free; with cfg.Postgres set it returns nil
// (no lock file). It returns ctx's error
// when ctx ends while it waits.
//
// A caller checks before work it cannot undo, such as reading standard
// input that is then gone (mnemo ingest -). The answer may be stale by
// the time the caller opens: a process that takes the lock in between
// makes Open return the *LockedError.
func CheckLock(ctx context.Context, cfg Config) error {
	if ctx == nil {
		return ErrNilContext
	}
	if cfg.Postgres != "" || cfg.Dir == "" {
		return nil
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return fmt.Errorf("engine: data directory %s: %w", cfg.Dir, err)
	}
	f, err := os.Open(filepath.Join(dir, LockFile))
	if err != nil {
		return nil // no lock file (or none to open): Open says why it cannot open dir
	}
	defer f.Close()
	if err := waitLock(ctx, f, dir, cfg.lockWait()); err != nil {
		return err
	}
	return unlock(f)
}

// readHolder reads the holder written in the lock file at path (the zero
// value when it cannot).
func readHolder(path string) LockHolder {
	var h LockHolder
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &h)
	}
	return h
}

// release gives the lock up. The file stays: removing it would let two
// processes lock two different files of the same name.
func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := errors.Join(unlock(l.f), l.f.Close())
	l.f = nil
	return err
}

// defaultHolder names this process when Config.Holder is empty: the
// program's file name.
func defaultHolder() string {
	if len(os.Args) == 0 {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
}

func (c *Config) holder() LockHolder {
	cmd := c.Holder
	if cmd == "" {
		cmd = defaultHolder()
	}
	return LockHolder{PID: os.Getpid(), Command: cmd, Since: time.Now().UTC().Truncate(time.Second)}
}

func (c *Config) lockWait() time.Duration {
	switch {
	case c.LockWait == 0:
		return DefaultLockWait
	case c.LockWait < 0:
		return 0
	}
	return c.LockWait
}
