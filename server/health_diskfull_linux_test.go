//go:build linux

package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
)

// TestHealthDiskFull: idx45 #2. Appends on a full disk answered 507
// (engine.ErrNoSpace) one by one while GET /healthz said
// {"status":"ok"}: nothing kept the refusal, so a load balancer or an
// alert on /healthz saw a healthy server that stored nothing. Now the
// engine keeps the last write's refusal (engine.DiskFull) until a write
// commits, and /healthz answers 200 degraded with DiskFullDetail, which
// names neither the refused text nor the data directory. Needs root (a
// tmpfs).
func TestHealthDiskFull(t *testing.T) {
	mnt := mountTmpfs(t, 8<<20)
	dir := filepath.Join(mnt, "d")
	h := newHarnessOn(t, false, server.Config{}, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	h.seed("t1", "r1", "", "zebra note before the disk filled", "an answer")
	if code, health := healthOf(t, h); code != 200 || health.Status != "ok" {
		t.Fatalf("healthz before: %d %+v, want 200 ok", code, health)
	}
	filler := fillDisk(t, mnt)
	const secret = "quokkasecretpayload"
	big := strings.Repeat(secret+" ", 4000)
	var r response
	for i := range 200 {
		r = h.do("POST", "/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
			"messages": []map[string]any{{"role": "user", "content": big}}})
		if r.status != 200 {
			break
		}
		if i == 199 {
			t.Fatal("200 appends of 80 kB fitted on a full 8 MiB disk: the test no longer fills it")
		}
	}
	if r.status != 507 {
		t.Fatalf("append on a full disk: %d %s, want 507", r.status, r.body)
	}
	if err := h.e.DiskFull(); !errors.Is(err, engine.ErrNoSpace) || strings.Contains(err.Error(), secret) {
		t.Errorf("DiskFull after a refused append: %v, want ErrNoSpace naming no stored text", err)
	}
	hr := h.do("GET", "/healthz", "", nil)
	code, health := healthOf(t, h)
	if code != 200 || health.Status != "degraded" || health.Reason != server.DiskFullDetail {
		t.Fatalf("healthz after a refused append: %d %+v, want 200 degraded with DiskFullDetail", code, health)
	}
	for _, s := range []string{secret, "t1", "r1", dir} {
		if strings.Contains(string(hr.body), s) {
			t.Errorf("healthz names %q: %s", s, hr.body)
		}
	}

	// Recall goes on from what the index holds (readme48 F1: the full disk
	// made bleve panic, the index was quarantined, and searches answered
	// no hits, "lexical": "unavailable: index closed").
	sr := h.do("POST", "/v1/search", "", map[string]any{"resourceId": "r1", "query": "zebra note"})
	var found struct {
		Hits      []json.RawMessage `json:"hits"`
		Retrieval map[string]string `json:"retrieval"`
	}
	if err := json.Unmarshal(sr.body, &found); err != nil || sr.status != 200 || len(found.Hits) == 0 || found.Retrieval["lexical"] != "ok" {
		t.Errorf("search on the full disk: %d %s, want the note stored before, lexical ok", sr.status, sr.body)
	}
	if q, _ := os.ReadDir(filepath.Join(dir, engine.QuarantineDir)); len(q) != 0 {
		t.Errorf("a full disk was taken for damage: %d quarantine directories", len(q))
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	h.ok("POST", "/v1/threads/{thread}/messages", "/v1/threads/t1/messages", "", map[string]any{"resourceId": "r1",
		"messages": []map[string]any{{"role": "user", "content": "zebra note once there is room"}}}, 200)
	// The commit ends the append's refusal. The lexical index, whose
	// batches the shared disk refused too, says the disk is full until its
	// own next write (scorch retries every 250 ms; disk56: the commit
	// cleared it while the index still could not write).
	if err := h.e.DiskFull(); err != nil && !strings.Contains(err.Error(), "lexical index") {
		t.Errorf("DiskFull after an append that committed: %v, want nil or the lexical index's refusal", err)
	}
	deadline := time.Now().Add(90 * time.Second)
	code, health = healthOf(t, h)
	for health.Status != "ok" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		code, health = healthOf(t, h)
	}
	if code != 200 || health.Status != "ok" {
		t.Fatalf("healthz once an append committed: %d %+v, want 200 ok", code, health)
	}
	// The index batches refused on the full disk wait in the outbox for
	// their retry (a backoff of seconds): the harness's check at the end
	// needs them done.
	for err := h.e.Check(t.Context()); err != nil; err = h.e.Check(t.Context()) {
		if time.Now().After(deadline) {
			t.Fatalf("check once there is room: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
