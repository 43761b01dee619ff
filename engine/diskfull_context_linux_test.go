//go:build linux

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestLoadContextDiskFull: walk44 F6. A LoadContext whose run claim or
// memctx record found the disk full returned SQLite's "database or disk
// is full" as it was (the server answered 500 internal, where an append
// on the same disk is ErrNoSpace and a 507). Now its error matches
// ErrNoSpace, and IsNoSpace holds. Needs root (a tmpfs).
func TestLoadContextDiskFull(t *testing.T) {
	ctx := context.Background()
	mnt := mountTmpfs(t, 8<<20)
	e, err := engine.Open(ctx, engine.Config{Dir: filepath.Join(mnt, "d"), Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("a", "the night train to Porto")}}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(mnt, "filler"))
	query := strings.Repeat("night train to Porto window seat ", 60)
	for i := range 2000 {
		_, err = e.LoadContext(ctx, engine.LoadRequest{RunID: fmt.Sprintf("run-%d", i), ThreadID: "t", Query: query})
		if err != nil {
			break
		}
	}
	if !errors.Is(err, engine.ErrNoSpace) || !engine.IsNoSpace(err) {
		t.Fatalf("LoadContext on a full disk: %v, want ErrNoSpace", err)
	}
}

// fill writes path until its disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600) // again: tops it up
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
}
