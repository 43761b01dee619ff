package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/observe"
)

// TestPlurals: counts of one are said in the singular ("1 resource, 1
// thread, 1 message stored", "erased 1 message", "deleted 1 thread", eval's
// "1 question scored"), others in the plural (before: "1 resources, 1
// threads, 1 messages", "1 questions scored").
func TestPlurals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(file, []byte(`{"thread":"t1","resource":"r","id":"m1","role":"user","content":"hello"}
{"thread":"t2","resource":"r","id":"m2","role":"user","content":"one"}
{"thread":"t2","resource":"r","id":"m3","role":"assistant","content":"two"}
`), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"Ingest", []string{"ingest", file}, "1 resource, 2 threads, 3 messages stored, 0 already stored, 0 skipped"},
		{"IngestAgain", []string{"ingest", file}, "1 resource, 2 threads, 0 messages stored, 3 already stored, 0 skipped"},
		{"DeleteMessage", []string{"delete", "--message", "m1", "--yes"}, "erased 1 message (m1)\ninvalidated 0 observations\nscrubbed 0 memctx records; removed 1 embedding\nworking memory: invalidated 0 versions; deleted 0 states and versions"},
		{"Eval", []string{"eval", "--mode", "lexical", seedLoCoMo}, "(locomo): 1 question scored, 0 skipped · mode lexical"}, // eval ingests elsewhere
		{"DeleteThread", []string{"delete", "--thread", "t2", "--yes"}, "erased 2 messages (m2, m3)\ndeleted 1 thread (t2)\ninvalidated 0 observations\nscrubbed 0 memctx records; removed 2 embeddings\nworking memory: invalidated 0 versions; deleted 0 states and versions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, append([]string{"--dir", dir}, c.args...)...)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, out %q (%s); want %q", code, out, stderr, c.want)
			}
		})
	}
}

// TestPluralsObserveAndDelete: observe's plan line and delete's prompt
// count one in the singular (before: "pending 1 turns, 1 tokens", "1
// message(s) (1 of the 1 ids are stored)").
func TestPluralsObserveAndDelete(t *testing.T) {
	for _, c := range []struct {
		p    observe.Plan
		want string
	}{
		{observe.Plan{Watermark: 8, PendingTurns: 1, PendingTokens: 1}, "watermark 8; pending 1 turn, 1 token (due: false)"},
		{observe.Plan{PendingTurns: 2, PendingTokens: 30, Due: true}, "watermark 0; pending 2 turns, 30 tokens (due: true)"},
	} {
		if got := pendingLine(c.p); got != c.want {
			t.Errorf("pendingLine(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
	e := enginetest.MustOpen(t, engine.Config{Dir: t.TempDir()})
	if _, err := e.Append(t.Context(), engine.AppendRequest{ThreadID: "t", ResourceID: "r",
		Messages: []engine.Message{{ID: "m1", Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	for ids, want := range map[string]string{"m1": "1 message (1 of 1 id stored)", "m1 m2": "1 message (1 of 2 ids stored)"} {
		if got, err := describeTarget(t.Context(), e, strings.Fields(ids), "", ""); err != nil || got != want {
			t.Errorf("describeTarget(%s) = %q, %v; want %q", ids, got, err, want)
		}
	}
}
