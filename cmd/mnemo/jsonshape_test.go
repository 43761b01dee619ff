package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/server"
)

// TestJSONListingShapes pins docs/cli.md's rule for --json listings: one
// that reads to the end (threads, messages) prints a bare array of the
// API's elements (no next page to name); one that pages (runs) prints
// the API's page object. mnemo messages --json is such an array of
// GET …/messages' elements, not {"messages": […]}: scripts read it so.
func TestJSONListingShapes(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := run(t, nil, "--dir", dir, "ingest", filepath.Join("..", "..", "demodata", "conversation.jsonl")); code != 0 {
		t.Fatalf("ingest exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "--dir", dir, "context", "--thread", "ana:today", "--run-id", "run-1"); code != 0 {
		t.Fatalf("context exit %d: %s", code, stderr)
	}
	var msgs []engine.Message
	decode(t, dir, &msgs, "messages", "--thread", "ana:today", "--json")
	if len(msgs) == 0 || msgs[0].Seq != 1 || msgs[0].ThreadID != "ana:today" {
		t.Errorf("messages --json: %d messages, first %+v", len(msgs), msgs)
	}
	var threads []engine.Thread
	decode(t, dir, &threads, "threads", "--json")
	if len(threads) == 0 {
		t.Error("threads --json: no threads")
	}
	var runs server.RunList
	decode(t, dir, &runs, "runs", "--json")
	if len(runs.Runs) != 1 || runs.Runs[0].RunID != "run-1" {
		t.Errorf("runs --json: %+v, want the page {runs: [run-1]}", runs)
	}
}

// decode runs mnemo --dir dir args and decodes its standard output into
// v, which fails when the output's shape is not v's (an object for a
// slice, an array for a struct).
func decode(t *testing.T, dir string, v any, args ...string) {
	t.Helper()
	code, stdout, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("%v: %v: %s", args, err, stdout)
	}
}
