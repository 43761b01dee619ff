package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOneShotSaysEviction: a one-shot command whose engine erases a
// thread on its own account says so on standard error, thread, resource
// and message count (never text), after its own output: mnemo ingest
// whose appends a quota's eviction follows, mnemo context that meets its
// thread idle past its lifetime. Both were silent outside serve and mcp
// (their engines had no Config.Events), though the thread was gone.
func TestOneShotSaysEviction(t *testing.T) {
	t.Run("IngestEvicts", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"quota":{"storeMessages":1}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(t.TempDir(), "in.jsonl")
		lines := `{"thread":"old-thread","resource":"u1","role":"user","content":"the spare key is under the blue flowerpot"}` + "\n" +
			`{"thread":"new-thread","resource":"u2","role":"user","content":"hello"}` + "\n"
		if err := os.WriteFile(in, []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := run(t, nil, "--dir", dir, "ingest", in)
		want := `mnemo ingest: warning: thread "old-thread" of resource "u1" was evicted: the store is over its quota (lifecycle.quota in mnemo.json); 1 message erased`
		if code != 0 || !strings.Contains(stderr, want) || strings.Contains(stderr, "flowerpot") {
			t.Fatalf("exit %d, stderr %q; want the line %q", code, stderr, want)
		}
	})
	t.Run("ContextExpires", func(t *testing.T) {
		dir := t.TempDir()
		if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
			t.Fatalf("ingest exit %d: %s", code, stderr)
		}
		if err := os.WriteFile(filepath.Join(dir, StoredConfigFile), []byte(`{"lifecycle":{"idleTtl":"1ms"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "ana:today")
		if !strings.Contains(stderr, `mnemo context: warning: thread "ana:today" of resource "ana" expired: idle for its lifetime`) {
			t.Fatalf("exit %d, stderr %q; want the expiry said", code, stderr)
		}
	})
	t.Run("QuietOtherwise", func(t *testing.T) {
		dir := t.TempDir()
		for _, args := range [][]string{
			{"ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")},
			{"context", "--thread", "ana:today"},
			{"delete", "--thread", "ana:today", "--yes"},
		} {
			if code, _, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...); code != 0 || strings.Contains(stderr, "warning") {
				t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
			}
		}
	})
}
