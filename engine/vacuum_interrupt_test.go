package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/recall"
)

// TestVacuumInterruptedAfterRewrite: a Vacuum whose context ends after
// SQLite's VACUUM committed and before its WAL checkpoint finished says
// so: ErrVacuumIncomplete with ctx's error, naming the rewrite. Before
// (brief cli45 #4) it returned "engine: vacuum: …: context canceled"
// (matching ErrEraseIncomplete, no erasure being involved), and `mnemo
// vacuum` said only that. The memory reads the same after, and once the
// engine is closed the WAL holds nothing (SQLite's checkpoint at the
// last close completes what the cancel stopped).
func TestVacuumInterruptedAfterRewrite(t *testing.T) {
	dir := t.TempDir()
	e := enginetest.MustOpen(t, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	bg := context.Background()
	if _, err := e.Append(bg, engine.AppendRequest{ThreadID: "kept", ResourceID: "r", Messages: []engine.Message{{Role: engine.RoleUser, Content: "the one message kept"}}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	defer engine.SetVacuumedHook(cancel)()
	res, err := e.Vacuum(ctx, false)
	if !errors.Is(err, engine.ErrVacuumIncomplete) || !errors.Is(err, context.Canceled) || errors.Is(err, engine.ErrEraseIncomplete) || res != nil {
		t.Fatalf("Vacuum cancelled after its VACUUM: %+v, %v; want nil and ErrVacuumIncomplete with context.Canceled, not ErrEraseIncomplete", res, err)
	}
	if !strings.Contains(err.Error(), "mnemo.db was rewritten and the rewrite committed") {
		t.Errorf("error %q does not say the rewrite committed", err)
	}
	msgs, err := e.Messages(bg, "kept", 1, 1)
	if err != nil || len(msgs) != 1 || msgs[0].Content != "the one message kept" {
		t.Fatalf("kept thread after the interrupted vacuum: %v, %v", msgs, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, engine.DatabaseFile+"-wal")); err == nil && fi.Size() > 0 {
		t.Errorf("after Close the WAL holds %d bytes, want the checkpoint completed", fi.Size())
	}
}
