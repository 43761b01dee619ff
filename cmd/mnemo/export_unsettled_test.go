package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
)

// pendingDispatchDir is a data directory (hash embedder) holding thread t
// of resource r: a user turn, then the assistant's call call_0 of
// charge_card dispatched under run-1 and never settled, as after a crash
// between BeginDispatch and SettleDispatch.
func pendingDispatchDir(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Append(ctx, inThreadT(engine.Message{ID: "m1", Role: "user", Content: "charge my card 50 euros"})); err != nil {
		t.Fatal(err)
	}
	call := engine.Message{ID: "m2", Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_0", Name: "charge_card", Arguments: json.RawMessage(`{"amount":50}`)}}}
	if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-1", ThreadID: "t", ResourceID: "r", Message: call}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExportWarnsUnsettled: walk43 F1. An export of a thread holding a
// dispatch of unknown outcome wrote the call and said nothing; imported,
// the call was dropped as unpaired and the "Outcome unknown … do not
// repeat" result with it, so the target showed no trace of a card charge
// that may have happened. The file format carries no dispatch; the export
// now warns on standard error naming the call, and --json lists it.
func TestExportWarnsUnsettled(t *testing.T) {
	dir := pendingDispatchDir(t)
	file := filepath.Join(t.TempDir(), "out.jsonl")
	code, out, stderr := run(t, nil, "--dir", dir, "export", file)
	if code != 0 || !strings.Contains(out, "exported 1 resource, 1 thread, 2 messages") {
		t.Fatalf("export: code %d\n%s%s", code, out, stderr)
	}
	want := `mnemo export: warning: 1 tool call of unknown outcome not carried: call_0 (charge_card, thread t, run run-1); ` +
		`the file holds each call but not its dispatch, so an import drops the call and the "Outcome unknown" result`
	if !strings.Contains(stderr, want) {
		t.Errorf("standard error:\n%s\nwant it to hold:\n%s", stderr, want)
	}

	code, out, stderr = run(t, nil, "--dir", dir, "export", "--json", filepath.Join(t.TempDir(), "out.jsonl"))
	var rep struct {
		Unsettled []engine.Dispatch `json:"unsettled"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || len(rep.Unsettled) != 1 || rep.Unsettled[0].CallID != "call_0" {
		t.Errorf("export --json: code %d, %v, unsettled %+v\n%s%s", code, err, rep.Unsettled, out, stderr)
	}

	code, _, stderr = run(t, nil, "--dir", dir, "export", "-")
	if code != 0 || !strings.Contains(stderr, "1 tool call of unknown outcome not carried: call_0") {
		t.Errorf("export to standard output: code %d\n%s", code, stderr)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}
