//go:build linux

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestBackupDiskFull: a backup onto a disk without room for the copy fails
// with ErrNoSpace, leaves neither the destination nor its staging
// directory, and leaves the data directory as it was (it checks and opens).
// Mounting the small tmpfs needs root (mountTmpfs skips otherwise).
func TestBackupDiskFull(t *testing.T) {
	ctx := context.Background()
	parent := mountTmpfs(t, 64<<10)
	e := enginetest.MustOpen(t, engine.Config{})
	for i := range 200 {
		if err := appendOne(ctx, e, "ana", "t1", fmt.Sprintf("turn %d %s", i, strings.Repeat("text ", 100))); err != nil {
			t.Fatal(err)
		}
	}
	dest := filepath.Join(parent, "backup")
	_, err := engine.Backup(ctx, engine.Config{Dir: e.Dir()}, dest, engine.BackupOptions{})
	if !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("Backup = %v, want ErrNoSpace", err)
	}
	t.Log(err)
	if _, err := os.Lstat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed backup left %s: %v", dest, err)
	}
	assertNoStaging(t, parent)
}
