package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSnapshotTruncatedEvent: a resource's shard snapshot truncated in
// place while the engine serves from it (recall's check before each
// search, snapshot_fault.go) does not fail a search or change its hits:
// the shard is built again from the store, and an EventRebuild names the
// resource.
func TestSnapshotTruncatedEvent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("mapped snapshots: Linux")
	}
	ctx := context.Background()
	dir := t.TempDir()
	cfg := engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, RecallTuning: recall.Tuning{SnapshotMin: 1}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []engine.Message
	for i := range 60 {
		msgs = append(msgs, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("turn %d: the parcel for Lisbon weighs %d kilos", i, i%9)})
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	snaps := filepath.Join(dir, engine.SnapshotDir)
	var file string
	waitFor(t, "the resource's snapshot", func() bool {
		files, _ := filepath.Glob(filepath.Join(snaps, "*.snap"))
		if len(files) == 1 {
			file = files[0]
		}
		return file != ""
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	events := make(chan engine.Event, 64)
	cfg.Events = events
	if e, err = engine.Open(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req := engine.SearchRequest{ResourceID: "r", Query: "parcel for Lisbon 7 kilos", Options: recall.Options{TopK: 5}}
	before, err := e.Search(ctx, req) // loads the shard from the snapshot
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 4096); err != nil {
		t.Fatal(err)
	}
	after, err := e.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := hitIDs(before), hitIDs(after); a != b || a == "" {
		t.Fatalf("hits before the truncation %q, after %q", a, b)
	}
	for {
		select {
		case ev := <-events:
			if ev.Reason == engine.EventRebuild && ev.ResourceID == "r" {
				return
			}
		default:
			t.Fatal("no rebuild event names the resource")
		}
	}
}

func hitIDs(r *recall.Result) string {
	var s string
	for _, h := range r.Hits {
		s += h.MessageID + " "
	}
	return s
}
