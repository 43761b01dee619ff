//go:build linux

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestFileTooLargeIsNoSpace: readme48 F2. Under a file size limit
// (ulimit -f; a FAT32 file's 4 GiB is the same EFBIG) the append whose
// write passed it failed "commit: disk I/O error (778)", with no advice,
// as if the disk were damaged. Now it is an ErrNoSpace that says a file
// reached the largest size allowed and what to do. The limit is the test
// process's own (RLIMIT_FSIZE, restored at the end; Go ignores SIGXFSZ,
// so the write fails with EFBIG): no root needed.
func TestFileTooLargeIsNoSpace(t *testing.T) {
	ctx := context.Background()
	cfg := engine.Config{Dir: filepath.Join(t.TempDir(), "d"), Embedder: recall.HashEmbedder{}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &was); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	limited := was
	limited.Cur = 2 << 20
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_FSIZE, &was)
	var appendErr error
	for b := 0; b < 400 && appendErr == nil; b++ {
		ms := make([]engine.Message, 20)
		for i := range ms {
			ms[i] = user(fmt.Sprintf("m-%d-%d", b, i), strings.Repeat(fmt.Sprintf("note %d of batch %d about the night train to Porto. ", i, b), 8))
		}
		_, appendErr = e.Append(ctx, engine.AppendRequest{ThreadID: fmt.Sprintf("t%d", b%10), ResourceID: "r", Messages: ms})
	}
	if !errors.Is(appendErr, engine.ErrNoSpace) || !strings.Contains(appendErr.Error(), "largest size allowed") || !strings.Contains(appendErr.Error(), "nothing committed is lost") {
		t.Fatalf("the append past the file size limit: %v, want ErrNoSpace saying a file reached the largest size allowed", appendErr)
	}
}

// TestFileTooLargeAtOpen: fix52. Under ulimit -f 8 (8 KiB) the first open
// of a new data directory failed growing mnemo.db-shm to SQLite's 32 KiB
// (SQLITE_IOERR_SHMSIZE, 4874) and was told to free space on a disk with
// room. It is the file size limit, and says so.
func TestFileTooLargeAtOpen(t *testing.T) {
	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &was); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	limited := was
	limited.Cur = 8 << 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_FSIZE, &was)
	e, err := engine.Open(context.Background(), engine.Config{Dir: filepath.Join(t.TempDir(), "d"), Embedder: recall.HashEmbedder{}})
	if err == nil {
		e.Close()
		t.Skip("the open fit in 8 KiB files")
	}
	if !errors.Is(err, engine.ErrNoSpace) || !strings.Contains(err.Error(), "largest size allowed") || strings.Contains(err.Error(), "free space") {
		t.Fatalf("the open under an 8 KiB file size limit: %v, want ErrNoSpace saying a file reached the largest size allowed", err)
	}
}
