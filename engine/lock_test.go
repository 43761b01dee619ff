package engine_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestLockHolderProcess is the second process of TestLockedDirectory: it
// opens the directory in $MNEMO_LOCK_DIR, says "open" and holds it until
// killed.
//
// SQLite only: the subprocess of TestLockedDirectory.
func TestLockHolderProcess(t *testing.T) {
	dir := os.Getenv("MNEMO_LOCK_DIR")
	if dir == "" {
		t.Skip("helper process of TestLockedDirectory")
	}
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Holder: "lock-holder-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	os.Stdout.WriteString("open\n")
	time.Sleep(time.Hour)
}

// TestLockedDirectory: while another process holds the data directory, Open
// fails within 2 s with a *LockedError naming the holder's pid, command and
// start time (before, it waited forever in bleve's file lock, silently);
// once that process is killed (kill -9, no cleanup), the next Open takes
// the lock over.
//
// SQLite only: the data directory's lock file; on Postgres any number of processes open one database.
func TestLockedDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$", "-test.count=1")
	cmd.Env = childEnv(t, "MNEMO_LOCK_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "open" {
		t.Fatalf("helper process: %q", line)
	}

	start := time.Now()
	done := make(chan error, 1)
	go func() {
		e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
		if err == nil {
			e.Close()
		}
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Open still waiting after a minute on a directory another process holds")
	}
	took := time.Since(start)
	var le *engine.LockedError
	if !errors.Is(err, engine.ErrLocked) || !errors.As(err, &le) {
		t.Fatalf("open of a held directory: %v, want a *LockedError", err)
	}
	if le.Holder.PID != cmd.Process.Pid || le.Holder.Command != "lock-holder-test" || le.Holder.Since.IsZero() {
		t.Fatalf("holder %+v, want pid %d, command lock-holder-test and a start time", le.Holder, cmd.Process.Pid)
	}
	for _, want := range []string{dir, "lock-holder-test", "kill", "retry"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// DefaultLockWait is 1 s; the bound leaves room for a loaded machine.
	if took > 2*time.Second {
		t.Errorf("refused after %s, want within 2 s", took)
	}
	t.Logf("refused after %s: %v", took.Round(time.Millisecond), err)

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Holder: "taker"})
	if err != nil {
		t.Fatalf("open after the holder died: %v", err)
	}
	defer e.Close()
	b, _ := os.ReadFile(filepath.Join(dir, engine.LockFile))
	if !strings.Contains(string(b), `"command":"taker"`) {
		t.Fatalf("lock file after the take-over: %s", b)
	}
}

// TestCheckLock: CheckLock answers a *LockedError naming the holder while
// an engine holds the directory (flock: two open files of one process
// conflict as two processes do), nil once it is closed, holding nothing
// (Open then takes the lock), and nil for a directory that does not
// exist, which it does not create.
//
// SQLite only: the data directory's lock file.
func TestCheckLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Holder: "check-lock-test"})
	if err != nil {
		t.Fatal(err)
	}
	err = engine.CheckLock(ctx, engine.Config{Dir: dir, LockWait: -1})
	var le *engine.LockedError
	if !errors.As(err, &le) || !errors.Is(err, engine.ErrLocked) {
		e.Close()
		t.Fatalf("CheckLock of a held directory: %v, want a *LockedError", err)
	}
	if le.Holder.PID != os.Getpid() || le.Holder.Command != "check-lock-test" {
		t.Errorf("holder %+v, want pid %d, command check-lock-test", le.Holder, os.Getpid())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := engine.CheckLock(ctx, engine.Config{Dir: dir}); err != nil {
		t.Fatalf("CheckLock of a free directory: %v", err)
	}
	e, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, LockWait: -1})
	if err != nil {
		t.Fatalf("Open after CheckLock: %v", err)
	}
	e.Close()
	missing := filepath.Join(t.TempDir(), "none")
	if err := engine.CheckLock(ctx, engine.Config{Dir: missing}); err != nil {
		t.Fatalf("CheckLock of a missing directory: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("CheckLock created %s: %v", missing, err)
	}
}

// TestLockedInProcess: a second Open of a directory this process already
// holds is a *LockedError that says so; it told the caller to kill its own
// pid ("stop it (kill 4242)").
//
// SQLite only: the data directory's lock file.
func TestLockedInProcess(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, LockWait: -1})
	var le *engine.LockedError
	if !errors.As(err, &le) || !errors.Is(err, engine.ErrLocked) {
		t.Fatalf("second Open: %v, want a *LockedError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "this process: another Engine has it open") || strings.Contains(msg, "kill") {
		t.Fatalf("second Open: %q, want it to say another Engine of this process has it open, and no kill", msg)
	}
}

// TestLockWaitHonoursContext: Open, CheckFile and Salvage wait for a held
// data directory up to Config.LockWait, and no longer than their context
// allows, as CheckLock does: they waited out LockWait whatever the
// context (a caller with a long LockWait could not cancel the wait).
//
// SQLite only: the data directory's lock file.
func TestLockWaitHonoursContext(t *testing.T) {
	dir := t.TempDir()
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cfg := engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, LockWait: time.Minute}
	for name, op := range map[string]func(context.Context) error{
		"Open": func(ctx context.Context) error {
			e2, err := engine.Open(ctx, cfg)
			if err == nil {
				e2.Close()
			}
			return err
		},
		"CheckFile": func(ctx context.Context) error { return engine.CheckFile(ctx, cfg, engine.CheckOptions{}) },
		"Salvage": func(ctx context.Context) error {
			_, err := engine.Salvage(ctx, cfg, engine.SalvageOptions{})
			return err
		},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- op(ctx) }()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s of a held directory with a 200 ms context: %v, want the context's error", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s still waits for the directory's lock 10 s after its context ended", name)
		}
		cancel()
	}
}
