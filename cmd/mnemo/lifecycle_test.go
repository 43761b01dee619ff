package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// TestThreadsAndExpire covers `mnemo threads --json` (lifecycle metadata,
// no content) and `mnemo expire` with --dry-run, --resource, --idle and the
// stored lifecycle configuration.
func TestThreadsAndExpire(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	past := time.Now().Add(-72 * time.Hour).UTC().Truncate(time.Millisecond)
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Now: func() time.Time { return past }})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []struct{ id, res string }{{"old-a", "alice"}, {"old-b", "bob"}} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.id, ResourceID: th.res,
			Messages: []engine.Message{{Role: "user", Content: "the secret word is pelican"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	code, out, stderr := run(t, nil, "--dir", dir, "threads", "--json")
	var ts []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &ts) != nil || len(ts) != 2 {
		t.Fatalf("threads --json: code %d\n%s%s", code, out, stderr)
	}
	for _, k := range []string{"id", "resourceId", "createdAt", "lastActiveAt", "messageCount", "bytes"} {
		if _, ok := ts[0][k]; !ok {
			t.Fatalf("threads --json lacks %q: %s", k, out)
		}
	}
	if strings.Contains(out, "pelican") {
		t.Fatalf("threads --json shows content: %s", out)
	}
	if got := ts[0]["lastActiveAt"]; got != past.Format(time.RFC3339Nano) {
		t.Fatalf("lastActiveAt %v, want %v", got, past)
	}

	// No lifetime configured: nothing expires without --idle, and the
	// command says why (it printed only "0 threads expired").
	if code, out, stderr := run(t, nil, "--dir", dir, "expire"); code != 0 || !strings.Contains(out, "0 threads expired") ||
		!strings.Contains(stderr, "no idle lifetime is configured") || !strings.Contains(stderr, "--idle D") {
		t.Fatalf("expire without a lifetime: code %d %s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "expire", "--idle", "48h", "--resource", "alice", "--dry-run")
	if code != 0 || !strings.Contains(out, "would expire thread old-a (resource alice)") || strings.Contains(out, "old-b") {
		t.Fatalf("expire --dry-run: code %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "expire", "--idle", "48h", "--resource", "alice", "--json")
	if code != 0 || !strings.Contains(out, `"threadId": "old-a"`) || !strings.Contains(out, `"reason": "operator"`) {
		t.Fatalf("expire --idle: code %d\n%s%s", code, out, stderr)
	}
	// The stored configuration's lifetime applies to plain `mnemo expire`.
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"idleTtl":"24h"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "expire")
	if code != 0 || !strings.Contains(out, "expired thread old-b (resource bob)") {
		t.Fatalf("expire with lifecycle.idleTtl: code %d\n%s%s", code, out, stderr)
	}
	if code, out, _ := run(t, nil, "--dir", dir, "threads", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("threads after expiry: %s", out)
	}
	for _, args := range [][]string{{"expire", "stray"}, {"expire", "--idle", "-1h"}} {
		if code, _, _ := run(t, nil, append([]string{"--dir", dir}, args...)...); code != 2 {
			t.Fatalf("%q: code %d, want 2", args, code)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"idleTtl":"soon"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "expire"); code == 0 || !strings.Contains(stderr, "lifecycle.idleTtl") {
		t.Fatalf("bad idleTtl: code %d %s", code, stderr)
	}
}

// TestServeSweep: the sweep mnemo serve starts expires idle threads on its
// own, every lifecycle.sweepEvery, and stops when asked.
func TestServeSweep(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"idleTtl":"1h","sweepEvery":"20ms"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-2 * time.Hour)
	old, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}, Now: func() time.Time { return past }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Append(ctx, engine.AppendRequest{ThreadID: "idle", ResourceID: "r",
		Messages: []engine.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	old.Close()
	m := &Main{Dir: dir}
	cfg, err := m.engineConfig(ctx, target{dir: dir}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Lifecycle: cfg.Lifecycle, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	mc, err := storedMemoryConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	stop := m.startSweep(ctx, e, slog.New(slog.DiscardHandler), mc)
	defer stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ts, err := e.ListThreads(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweep did not expire the idle thread within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	stop() // idempotent
}

// TestExpireIdleZero: --idle 0 is refused as a value error naming --idle
// (exit 2, nothing opened): Idle 0 is no override (each thread's own
// lifetime, as leaving --idle out), so "--idle 0s --dry-run" ran the
// configured policy and then said "no idle lifetime is configured … --idle
// D expires every thread idle that long" to one who had given --idle.
func TestExpireIdleZero(t *testing.T) {
	const want = "mnemo expire: --idle must be positive: 0 overrides nothing (leave --idle out to apply each thread's own lifetime)\nRun 'mnemo help expire' for the flags.\n"
	for _, idle := range []string{"0s", "0", "0h0m"} {
		code, out, stderr := run(t, nil, "--dir", t.TempDir(), "expire", "--idle", idle, "--dry-run")
		if code != 2 || out != "" || stderr != want {
			t.Errorf("expire --idle %s --dry-run: exit %d, stdout %q, stderr %q; want exit 2 and %q", idle, code, out, stderr, want)
		}
	}
}
