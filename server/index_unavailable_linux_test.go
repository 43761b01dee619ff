//go:build linux

package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// mountTmpfs mounts a tmpfs of size bytes on a temporary directory and
// returns it; the test skips without the right to mount (root).
func mountTmpfs(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fillDisk writes a file under dir until its disk is full and returns
// the file's path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return p
			}
			t.Fatal(err)
		}
	}
}

// healthOf returns GET /healthz's status code and body.
func healthOf(t *testing.T, h *harness) (int, server.Health) {
	t.Helper()
	r := h.do("GET", "/healthz", "", nil)
	var health server.Health
	if err := json.Unmarshal(r.body, &health); err != nil {
		t.Fatalf("healthz %d %s: %v", r.status, r.body, err)
	}
	return r.status, health
}

// TestHealthIndexUnavailable: walk43 F2. index/ gone while the server
// runs, on a disk with no room for a new one: the recovery closed the
// index and could not open a fresh one (index_meta.json: no space left),
// and /healthz said {"status":"ok"} while every search answered no hits.
// Now it answers 200 degraded with IndexUnavailableDetail until the disk
// has room again, and ok once the index is rebuilt. Needs root (a tmpfs).
func TestHealthIndexUnavailable(t *testing.T) {
	mnt := mountTmpfs(t, 8<<20)
	dir := filepath.Join(mnt, "d")
	h := newHarnessOn(t, false, server.Config{}, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	for i := range 5 {
		h.seed("t1", "r1", "", fmt.Sprintf("zebra note %d before the deletion", i), "an answer")
	}
	if err := h.e.SyncIndexes(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, health := healthOf(t, h); code != 200 || health.Status != "ok" {
		t.Fatalf("healthz before: %d %+v, want 200 ok", code, health)
	}
	// The disk fills first; index/ is then moved out of the data
	// directory (on the same disk: no room is freed), as rm -rf would
	// remove it.
	filler := fillDisk(t, mnt)
	if err := os.Rename(filepath.Join(dir, "index"), filepath.Join(mnt, "index.moved")); err != nil {
		t.Fatal(err)
	}
	// The WAL has room for a small append; its indexing meets the gone
	// index, whose recovery finds no room.
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
		"messages": []map[string]any{{"role": "user", "content": "zebra note after the deletion"}}}, 200)
	deadline := time.Now().Add(90 * time.Second)
	code, health := healthOf(t, h)
	for health.Status == "ok" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		code, health = healthOf(t, h)
	}
	// Since b277afd7 the index's own refusal is part of DiskFull: the old
	// index's merger (its files still open, on the full disk) may meet the
	// disk's lack of room before the drain meets the gone index, and the
	// reason is then the full disk's (CI saw it once). Either way the
	// status is degraded, never ok, and the reason names what holds.
	if code != 200 || health.Status != "degraded" || health.Reason != server.IndexUnavailableDetail && health.Reason != server.DiskFullDetail {
		t.Fatalf("healthz with the index gone and the disk full: %d %+v, want 200 degraded with IndexUnavailableDetail or DiskFullDetail", code, health)
	}
	// fix52 (readme51 F3): a write refused for room as well
	// (engine.DiskFull) made the reason DiskFullDetail alone, "reads and
	// searches answer", hiding the closed index. Now the reason names both.
	big := strings.Repeat("night train to Porto, window seat. ", 2000)
	var r response
	for i := range 200 {
		r = h.do("POST", "/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
			"messages": []map[string]any{{"role": "user", "content": fmt.Sprintf("%d %s", i, big)}}})
		if r.status != 200 {
			break
		}
	}
	if r.status != 507 {
		t.Fatalf("append of 70 kB on the full disk: %d %s, want 507", r.status, r.body)
	}
	if code, health = healthOf(t, h); code != 200 || health.Status != "degraded" || health.Reason != server.DiskFullIndexUnavailableDetail && health.Reason != server.DiskFullDetail {
		t.Fatalf("healthz with the index gone and a write refused: %d %+v, want 200 degraded with DiskFullIndexUnavailableDetail (DiskFullDetail while the gone index is not met yet)", code, health)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	// The disk-full state lasts until a write commits.
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
		"messages": []map[string]any{{"role": "user", "content": "zebra note once there is room"}}}, 200)
	for health.Status != "ok" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		code, health = healthOf(t, h)
	}
	if code != 200 || health.Status != "ok" {
		t.Fatalf("healthz once the disk has room: %d %+v, want 200 ok", code, health)
	}
	r = h.do("POST", "/v1/search", "", map[string]any{"resourceId": "r1", "query": "zebra deletion"})
	if r.status != 200 || !strings.Contains(string(r.body), `"lexical":"ok"`) || !strings.Contains(string(r.body), "after the deletion") {
		t.Fatalf("search after the recovery: %d %s", r.status, r.body)
	}
}

// TestAppendDiskFull: walk43 F9. An append that finds the data
// directory's disk full (engine.ErrNoSpace) answered 500 "internal"
// ("the request failed; the server log has the cause"). Now it is 507
// insufficient-storage saying nothing was stored and naming no path;
// the server still answers reads, and once there is room the append is
// stored. Needs root (a tmpfs).
func TestAppendDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, 8<<20)
	h := newHarnessOn(t, false, server.Config{}, engine.Config{Dir: filepath.Join(mnt, "d"), Embedder: recall.HashEmbedder{}})
	h.seed("t1", "r1", "", "zebra note before the disk filled")
	filler := fillDisk(t, mnt)
	big := strings.Repeat("night train to Porto, window seat. ", 2000)
	var r response
	for i := 0; i < 100; i++ {
		r = h.do("POST", "/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
			"messages": []map[string]any{{"role": "user", "content": fmt.Sprintf("%d %s", i, big)}}})
		if r.status != 200 {
			break
		}
	}
	p := r.problem(t)
	if r.status != 507 || !strings.HasSuffix(p.Type, "/insufficient-storage") || p.Detail != server.NoSpaceDetail || strings.Contains(string(r.body), mnt) {
		t.Fatalf("append on a full disk: %d %s, want 507 insufficient-storage with NoSpaceDetail and no path", r.status, r.body)
	}
	if r := h.do("POST", "/v1/search", "", map[string]any{"resourceId": "r1", "query": "zebra"}); r.status != 200 {
		t.Errorf("search on the full disk: %d %s, want 200", r.status, r.body)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
		"messages": []map[string]any{{"role": "user", "content": "stored once there is room"}}}, 200)
	// The rows the drainer deferred on the full disk fall due with its
	// backoff; then the directory checks clean.
	var err error
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err = h.e.SyncIndexes(t.Context()); err == nil {
			if err = h.e.Check(t.Context()); err == nil {
				return
			}
		}
	}
	t.Fatalf("check once there is room: %v", err)
}

// TestHealthDatabaseUnlinked: walk43 F3. mnemo.db removed while the
// server runs: /healthz said "the database file was found damaged;
// restore it from a backup or run mnemo salvage" (a new, empty file had
// been created beside the old WAL). Now it is 503 saying the file was
// removed and to copy it out before stopping the server, with no
// Retry-After.
func TestHealthDatabaseUnlinked(t *testing.T) {
	dir := t.TempDir()
	h := newHarnessOn(t, false, server.Config{}, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	h.seed("t1", "r1", "", "before the removal")
	if err := os.Remove(filepath.Join(dir, engine.DatabaseFile)); err != nil {
		t.Fatal(err)
	}
	r := h.do("GET", "/healthz", "", nil)
	p := r.problem(t)
	if r.status != 503 || !strings.Contains(p.Detail, "was removed") || !strings.Contains(p.Detail, "copy it out") || strings.Contains(p.Detail, "salvage") {
		t.Fatalf("healthz with mnemo.db removed: %d %s, want 503 saying it was removed and to copy it out", r.status, r.body)
	}
	if ra := r.header.Get("Retry-After"); ra != "" {
		t.Fatalf("healthz with mnemo.db removed answered Retry-After: %s; waiting does not bring the file back (walk56 F6)", ra)
	}
	h.e.Close() // nothing to check: the file is gone
}
