package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMemCtxTextUnsettled: walk43 F4. The text memctx (mnemo context,
// mnemo memctx RUN) listed recent, dropped and the rest but nothing of a
// dispatched call whose outcome is unknown, which --json carries as
// unsettled; it now has an "unsettled N:" section naming each call.
func TestMemCtxTextUnsettled(t *testing.T) {
	dir := pendingDispatchDir(t)
	want := "unsettled 1:\n  unsettled: t #2 tool call call_0  Outcome unknown: this action was started"
	code, out, stderr := run(t, nil, "--dir", dir, "context", "--thread", "t", "--resource", "r", "--run-id", "run-ctx")
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("context: exit %d\n%s%s\nwant it to hold:\n%s", code, out, stderr, want)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "memctx", "run-ctx")
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("memctx: exit %d\n%s%s\nwant it to hold:\n%s", code, out, stderr, want)
	}
	code, out, stderr = run(t, nil, "--dir", dir, "memctx", "--json", "run-ctx")
	var rec struct {
		Unsettled []struct {
			ToolCallID string `json:"toolCallId"`
		} `json:"unsettled"`
	}
	if err := json.Unmarshal([]byte(out), &rec); code != 0 || err != nil || len(rec.Unsettled) != 1 || rec.Unsettled[0].ToolCallID != "call_0" {
		t.Errorf("memctx --json: exit %d, %v, %+v\n%s%s", code, err, rec.Unsettled, out, stderr)
	}
}
