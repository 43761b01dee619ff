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
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/working"
)

// TestDiskFullKept: idx45 #2. A write refused for lack of room returned
// ErrNoSpace and nothing kept it, so a server could not say so between
// writes (/healthz said ok). Now DiskFull matches ErrNoSpace from the
// refused append, naming none of its text, until the next append that
// commits. Needs root (a tmpfs).
func TestDiskFullKept(t *testing.T) {
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
	if err := e.DiskFull(); err != nil {
		t.Fatalf("DiskFull before the disk filled: %v", err)
	}
	filler := filepath.Join(mnt, "filler")
	fill(t, filler)
	const secret = "quokkasecretpayload"
	big := strings.Repeat(secret+" ", 4000)
	for range 200 {
		_, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", big)}})
		if err != nil {
			break
		}
	}
	if !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("append on a full disk: %v, want ErrNoSpace", err)
	}
	if err := e.DiskFull(); !errors.Is(err, engine.ErrNoSpace) || strings.Contains(err.Error(), secret) {
		t.Fatalf("DiskFull after a refused append: %v, want ErrNoSpace naming none of its text", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("b", "room again")}}); err != nil {
		t.Fatal(err)
	}
	diskFullEnds(t, e, "an append that committed")
}

// TestDiskFullWorkingMemory: a035793's loose end. The updates of the
// *working.Memory that WorkingMemory returns (the server's PUT
// …/working-memory, mnemo wm) neither set nor cleared DiskFull: one that
// committed once there was room again left it set from a refused append
// (/healthz degraded though writes succeeded), and one the disk refused
// left it nil (/healthz ok). Now they do both, as the engine's own writes
// do. Needs root (a tmpfs).
func TestDiskFullWorkingMemory(t *testing.T) {
	ctx := context.Background()
	mnt := mountTmpfs(t, 8<<20)
	e, err := engine.Open(ctx, engine.Config{Dir: filepath.Join(mnt, "d"), Embedder: recall.HashEmbedder{},
		WorkingMemory: &working.Config{Template: "# Notes\n", Scope: working.ScopeResource, MaxChars: 100000}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	wm, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	key := working.ResourceKey("r")
	const secret = "quokkasecretpayload"
	big := strings.Repeat(secret+" ", 4000)
	filler := filepath.Join(mnt, "filler")

	fill(t, filler)
	for range 200 {
		if _, err = e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("", big)}}); err != nil {
			break
		}
	}
	if err := e.DiskFull(); !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("DiskFull after appends on a full disk: %v, want ErrNoSpace", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := wm.Set(ctx, key, "# Notes\n- room again\n", working.Origin{}); err != nil {
		t.Fatal(err)
	}
	diskFullEnds(t, e, "a working-memory write that committed")

	fill(t, filler)
	for i := range 200 {
		if _, err = wm.Set(ctx, key, fmt.Sprintf("# Notes %d\n%s", i, big), working.Origin{}); err != nil {
			break
		}
	}
	if !errors.Is(err, engine.ErrNoSpace) {
		t.Fatalf("working-memory write on a full disk: %v, want ErrNoSpace", err)
	}
	if err := e.DiskFull(); !errors.Is(err, engine.ErrNoSpace) || strings.Contains(err.Error(), secret) {
		t.Fatalf("DiskFull after a refused working-memory write: %v, want ErrNoSpace naming none of its text", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := wm.Set(ctx, key, "# Notes\n- room once more\n", working.Origin{}); err != nil {
		t.Fatal(err)
	}
	diskFullEnds(t, e, "a working-memory write that committed")
}

// diskFullEnds checks DiskFull after a write that committed once the
// disk had room again (what): nil, or the lexical index's own refusal on
// the shared disk (its batches refused while it was full), which its next
// write ends (scorch retries every 250 ms: waited for with a minute's
// deadline); never the refused write's.
func diskFullEnds(t *testing.T, e *engine.Engine, what string) {
	t.Helper()
	err := e.DiskFull()
	if err != nil && !strings.Contains(err.Error(), "lexical index") {
		t.Errorf("DiskFull after %s: %v, want nil or the lexical index's refusal", what, err)
		return
	}
	deadline := time.Now().Add(time.Minute)
	for err != nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		err = e.DiskFull()
	}
	if err != nil {
		t.Errorf("DiskFull a minute after %s: %v, want nil (the index writes once there is room)", what, err)
	}
}
