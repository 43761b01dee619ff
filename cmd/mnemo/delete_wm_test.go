package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

// wmRunsDir is a data directory where two runs of resource ana each wrote a
// working-memory version through the tool: run-1 on thread t after "I
// live in Lyon" (mA), run-2 on thread u after "I like cheese" (mB).
// Erasing mB invalidates run-2's version and rebuilds the state from
// run-1's.
func wmRunsDir(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	cfg := engine.Config{Dir: t.TempDir(), Embedder: recall.HashEmbedder{}, WorkingMemory: &working.Config{Scope: working.ScopeResource,
		Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"likes":{"type":"array","items":{"type":"string"}}}}`)}}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, s := range []struct{ thread, id, text, run, patch string }{
		{"t", "mA", "I live in Lyon", "run-1", `{"city":"Lyon"}`},
		{"u", "mB", "I like cheese", "run-2", `{"likes":["cheese"]}`},
	} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: s.thread, ResourceID: "ana", Messages: []engine.Message{{ID: s.id, Role: "user", Content: s.text}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: s.run, ThreadID: s.thread, RecentN: 1}); err != nil {
			t.Fatal(err)
		}
		call := openai.ToolCall{ID: "c" + s.id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: tools.UpdateWorkingMemoryName, Arguments: s.patch}}
		if _, err := e.HandleToolCall(ctx, s.run, s.thread, "", call); err != nil {
			t.Fatal(err)
		}
	}
	return cfg.Dir
}

// TestDeleteWorkingMemoryText: mnemo delete's text says what the erasure
// did to working memory as --json does (workingMemoryInvalidated,
// workingMemory). Before, it said "removed 1 embedding, 0 working-memory
// states" of an erasure that invalidated a version and rebuilt the state,
// so a user checking that the erasure reached working memory read 0.
func TestDeleteWorkingMemoryText(t *testing.T) {
	code, out, stderr := run(t, nil, "--dir", wmRunsDir(t), "delete", "--yes", "--json", "--message", "mB")
	var res engine.EraseResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.WorkingMemoryInvalidated != 1 || res.WorkingMemory != 0 {
		t.Fatalf("delete --json: exit %d, want workingMemoryInvalidated 1, workingMemory 0\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", wmRunsDir(t), "delete", "--yes", "--message", "mB")
	want := "\nworking memory: invalidated 1 version, its state rebuilt without it; deleted 0 states and versions\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("delete: exit %d, want %q\n%s%s", code, want, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", wmRunsDir(t), "delete", "--yes", "--resource", "ana")
	want = "\nworking memory: invalidated 0 versions; deleted 3 states and versions\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("delete --resource: exit %d, want %q\n%s%s", code, want, out, stderr)
	}
}
