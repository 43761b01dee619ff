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
