package engine_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestSnapshotTruncatedEvent: a resource's shard snapshot truncated in
// place while the engine serves from it (recall's check before each
// search, snapshot_fault.go) does not fail a search or change its hits:
// the shard is built again from the store, and an EventRebuild names the
// resource. (The truncation may also meet the background check of the
// vector part first, snapshot_verify.go: that drop is told the same way,
// so the event is awaited, not polled once.)
func TestSnapshotTruncatedEvent(t *testing.T) {
	cfg, file := closedSnapshot(t)
	ctx := context.Background()
	events := make(chan engine.Event, 64)
	cfg.Events = events
	e, err := engine.Open(ctx, cfg)
	if err != nil {
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
	awaitRebuild(t, events, "r", "")
}

// TestCheckSnapshotDamaged: Check reads every shard snapshot file whole
// and deletes one whose vector part fails its checksum (a load verifies
// only the messages part and serves while the vector part is checked in
// the background, giving wrong vector scores meanwhile), reporting it; the
// next check passes. Before, Check passed with the damaged file in place.
func TestCheckSnapshotDamaged(t *testing.T) {
	cfg, file := closedSnapshot(t)
	ctx := context.Background()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-24-64] ^= 0x5a // in the vector part, before the 24-byte footer
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	err = e.Check(ctx)
	var ce *engine.CheckError
	if !errors.Is(err, engine.ErrInconsistent) || !errors.As(err, &ce) || len(ce.Snapshots) != 1 || ce.Snapshots[0] != filepath.Base(file) {
		t.Fatalf("Check: %v, want ErrInconsistent naming the snapshot %s", err, filepath.Base(file))
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the damaged snapshot is still there (%v)", err)
	}
	if err := e.Check(ctx); err != nil {
		t.Fatalf("second Check: %v", err)
	}
}

// TestSnapshotVectorPartRejectedEvent: a snapshot whose vector part is
// damaged serves until its background check fails; then the shard is
// dropped and built again from the store, and an EventRebuild names the
// resource and the failed checksum (the drop was silent before: only a
// test counter saw it).
func TestSnapshotVectorPartRejectedEvent(t *testing.T) {
	cfg, file := closedSnapshot(t)
	ctx := context.Background()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-24-64] ^= 0x5a // the vector part ends where the 24-byte footer begins
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	events := make(chan engine.Event, 64)
	cfg.Events = events
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req := engine.SearchRequest{ResourceID: "r", Query: "parcel for Lisbon 7 kilos", Options: recall.Options{TopK: 5}}
	if _, err := e.Search(ctx, req); err != nil { // loads the shard; its vector part is checked meanwhile
		t.Fatal(err)
	}
	awaitRebuild(t, events, "r", "checksum")
	if res, err := e.Search(ctx, req); err != nil || len(res.Hits) == 0 {
		t.Fatalf("search after the drop: %v, %v", res, err)
	}
}

// TestSnapshotRejectedAtLoadEvent: a snapshot refused while it loads (its
// checksum, or the file of another resource in its place) is deleted and
// the shard built from the store, as before, and now an EventRebuild names
// the resource and the reason, without a word of the other resource's
// (before, nothing was published: an operator never learned of it).
func TestSnapshotRejectedAtLoadEvent(t *testing.T) {
	t.Run("Checksum", func(t *testing.T) {
		cfg, file := closedSnapshot(t)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		b[200] ^= 0x5a // in the messages part
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		loadAndAwait(t, cfg, "checksum", "")
	})
	t.Run("AnotherResource", func(t *testing.T) {
		cfg, file := closedSnapshot(t)
		e, err := engine.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []engine.Message
		for i := range 40 {
			msgs = append(msgs, engine.Message{Role: engine.RoleUser, Content: fmt.Sprintf("secret-tenant note %d about zebras", i)})
		}
		if _, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: "secret-thread", ResourceID: "secret-tenant", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(context.Background()); err != nil {
			t.Fatal(err)
		}
		var other string
		waitFor(t, "the other resource's snapshot", func() bool {
			files, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*.snap"))
			for _, f := range files {
				if f != file {
					other = f
				}
			}
			return other != ""
		})
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(other)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		loadAndAwait(t, cfg, "another resource", "secret")
	})
}

// loadAndAwait opens cfg, searches resource "r" (loading its shard) and
// awaits a rebuild event naming it whose detail holds want and not
// forbidden (when not ""); the search must find "r"'s turns.
func loadAndAwait(t *testing.T, cfg engine.Config, want, forbidden string) {
	t.Helper()
	ctx := context.Background()
	events := make(chan engine.Event, 64)
	cfg.Events = events
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req := engine.SearchRequest{ResourceID: "r", Query: "parcel for Lisbon 7 kilos", Options: recall.Options{TopK: 5}}
	res, err := e.Search(ctx, req)
	if err != nil || len(res.Hits) == 0 || !strings.HasPrefix(res.Hits[0].ThreadID, "t") {
		t.Fatalf("search: %v, %+v", err, res)
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Reason != engine.EventRebuild || ev.ResourceID != "r" {
				continue
			}
			if forbidden != "" && strings.Contains(ev.Detail, forbidden) {
				t.Fatalf("the event tells another resource's data: %q", ev.Detail)
			}
			if strings.Contains(ev.Detail, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no rebuild event names resource r (%q)", want)
		}
	}
}

// closedSnapshot writes 60 messages of resource "r" in a new directory
// with shard snapshots for every resource, waits for the resource's
// snapshot file, closes the engine and returns its config and the file.
func closedSnapshot(t *testing.T) (engine.Config, string) {
	t.Helper()
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
	return cfg, file
}

// awaitRebuild waits up to 30 s for an EventRebuild naming resource whose
// detail holds want.
func awaitRebuild(t *testing.T, events <-chan engine.Event, resource, want string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Reason == engine.EventRebuild && ev.ResourceID == resource && strings.Contains(ev.Detail, want) {
				return
			}
		case <-timeout:
			t.Fatalf("no rebuild event names resource %s (%q)", resource, want)
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
