//go:build unix

package engine_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
)

// TestBackupStagedProcess is the second process of
// TestBackupKilledStaging: it backs up $MNEMO_BACKUP_DIR to
// $MNEMO_BACKUP_DEST and, once the copy in the staging directory is
// complete, says "staged PATH" and waits there until killed.
func TestBackupStagedProcess(t *testing.T) {
	dir, dest := os.Getenv("MNEMO_BACKUP_DIR"), os.Getenv("MNEMO_BACKUP_DEST")
	if dir == "" {
		t.Skip("helper process of TestBackupKilledStaging")
	}
	defer engine.SetBackupStagedHook(func(staging string) {
		os.Stdout.WriteString("staged " + staging + "\n")
		time.Sleep(time.Hour)
	})()
	_, err := engine.Backup(context.Background(), engine.Config{Dir: dir}, dest, engine.BackupOptions{})
	t.Fatalf("the backup returned (%v) instead of waiting to be killed", err)
}

// TestBackupKilledStaging: the staging directory (.DEST.backup-*) of a
// backup killed before it finished (SIGKILL: no cleanup) is removed by
// the next backup to the same parent directory, which names it
// (BackupResult.RemovedStaging); while that backup runs, a backup beside
// it leaves its staging directory alone; a directory of that name
// without a backup's lock file is never removed. Before, every killed
// backup left a copy of the whole database there for good.
func TestBackupKilledStaging(t *testing.T) {
	ctx := context.Background()
	dir := closedDir(t, "t")
	parent := t.TempDir()
	other := filepath.Join(parent, ".notes.backup-1") // not a backup's: no lock file
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "keep"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackupStagedProcess$", "-test.count=1")
	cmd.Env = childEnv(t, "MNEMO_BACKUP_DIR="+dir, "MNEMO_BACKUP_DEST="+filepath.Join(parent, "killed"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	staging, ok := strings.CutPrefix(strings.TrimSpace(line), "staged ")
	if !ok || filepath.Dir(staging) != parent {
		t.Fatalf("helper process: %q, want \"staged %s/.killed.backup-*\"", line, parent)
	}
	backup := func(name string, removed ...string) {
		t.Helper()
		res, err := engine.Backup(ctx, engine.Config{Dir: dir}, filepath.Join(parent, name), engine.BackupOptions{})
		if err != nil {
			t.Fatalf("backup %s: %v", name, err)
		}
		if !slices.Equal(res.RemovedStaging, removed) {
			t.Fatalf("backup %s removed %v, want %v", name, res.RemovedStaging, removed)
		}
	}
	backup("beside") // the helper's backup runs: its staging directory stays
	if _, err := os.Stat(filepath.Join(staging, engine.DatabaseFile)); err != nil {
		t.Fatalf("a backup removed the staging directory of one still running: %v", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	backup("after", filepath.Base(staging))
	if _, err := os.Lstat(staging); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed backup's staging directory is still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(other, "keep")); err != nil || string(b) != "mine" {
		t.Fatalf("a directory that is no backup's was touched: %q %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(parent, "killed")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed backup left its destination: %v", err)
	}
}
