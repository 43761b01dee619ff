package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
)

// TestKeptDamagedSalvage: after a real salvage of a crash image (mnemo.db
// with its -wal and -shm, copied while an engine had it open), KeptDamaged
// lists each file the salvage kept as its own entry, the database file
// followed by its -wal and -shm, so an erasure's answer
// (EraseResult.KeptDamaged: mnemo delete's note, the server's DELETE
// routes, MCP memory_delete) names every file no erasure reaches. Before,
// it listed only mnemo.db.damaged-<time>. A -wal whose database file was
// deleted is still listed.
func TestKeptDamagedSalvage(t *testing.T) {
	ctx := context.Background()
	live := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: live})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("a", "a secret about the walrus")}}); err != nil {
		t.Fatal(err)
	}
	// The schema and the first append into mnemo.db before the copy: the
	// drainer checkpoints (and may empty the WAL) after each batch, and a
	// copy of mnemo.db read before such a checkpoint beside a WAL read
	// after it held no schema at all ("the damaged file holds no mnemo
	// schema", once in a loaded whole-engine run). The late append stays
	// in the WAL, or is checkpointed into a file that already has the rest.
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	truncateWAL(t, filepath.Join(live, engine.DatabaseFile))
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: []engine.Message{user("b", "a late message about the walrus")}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{engine.DatabaseFile, engine.DatabaseFile + "-wal", engine.DatabaseFile + "-shm"} {
		b, err := os.ReadFile(filepath.Join(live, f))
		if err != nil {
			t.Fatalf("the crash image lacks %s: %v", f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := engine.Salvage(ctx, engine.Config{Dir: dir}, engine.SalvageOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(rep.Damaged)
	want := []string{base, base + "-wal", base + "-shm"}
	onDisk, _ := filepath.Glob(filepath.Join(dir, engine.DatabaseFile+".damaged-*"))
	if len(onDisk) != len(want) {
		t.Fatalf("the salvage kept %v, want %v", onDisk, want)
	}
	if got := engine.KeptDamaged(dir); !slices.Equal(got, want) {
		t.Fatalf("KeptDamaged = %v, want %v", got, want)
	}
	s, err := engine.Open(ctx, engine.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.DeleteThread(ctx, "t")
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.KeptDamaged, want) {
		t.Fatalf("EraseResult.KeptDamaged = %v, want %v", res.KeptDamaged, want)
	}
	if err := os.Remove(rep.Damaged); err != nil {
		t.Fatal(err)
	}
	if got := engine.KeptDamaged(dir); !slices.Equal(got, want[1:]) {
		t.Fatalf("KeptDamaged once the database file is deleted = %v, want %v", got, want[1:])
	}
}
