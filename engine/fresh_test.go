package engine_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestDrainerGetsAppendedRows: the drainer indexes the rows an Append
// handed over (fresh.go) instead of reading them back. What it gets must be
// what MessagesByID reads (milliseconds in UTC, metadata, tool calls, a
// large tool result's stored summary, duplicates and unknown ids as
// MessagesByID treats them), and a message erased between the append and
// the drain must not come back from the cache.
func TestDrainerGetsAppendedRows(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{Limits: engine.Limits{ToolResultInlineBytes: 64}})
	release := e.HoldDrain()
	defer func() { release() }()
	at := time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.FixedZone("x", 3600))
	msgs := []engine.Message{
		{ID: "m-user", Role: engine.RoleUser, Content: "plain text", CreatedAt: at},
		{ID: "m-meta", Role: engine.RoleUser, Content: "with metadata", Metadata: map[string]any{"k": "v", "n": 2.5}},
		{ID: "m-call", Role: engine.RoleAssistant, Content: "calling", Name: "bot",
			ToolCalls: []engine.ToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"q": "x"}`)}}},
		{ID: "m-tool", Role: engine.RoleTool, ToolCallID: "c1", Name: "lookup", Content: strings.Repeat("a long tool result ", 40)},
		{ID: "m-gone", Role: engine.RoleUser, Content: "erased before the drain"},
	}
	if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if !engine.FreshHeld(e, m.ID) {
			t.Fatalf("the append handed %s no row for the drainer", m.ID)
		}
	}
	ids := []string{"m-tool", "m-user", "unknown", "m-meta", "m-call", "m-user"}
	want, err := e.MessagesByID(ctx, "", ids...)
	if err != nil {
		t.Fatal(err)
	}
	if !want[0].Truncated {
		t.Fatalf("m-tool is not stored by reference; the test needs a truncated row")
	}
	got, err := e.MessagesToIndex(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if engine.FreshHeld(e, "m-user") {
		t.Errorf("m-user is still held after the drainer took it")
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("handed-over rows differ from the stored ones:\nread   %+v\nhanded %+v", want, got)
	}

	// The erasure's transaction commits before its purge, which waits for
	// the drain lock held here: the drainer may run in between.
	erased := make(chan error, 1)
	go func() {
		_, err := e.DeleteMessages(ctx, "m-gone")
		erased <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if ms, err := e.MessagesByID(ctx, "", "m-gone"); err != nil {
			t.Fatal(err)
		} else if len(ms) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("m-gone is still stored 10 s after DeleteMessages began")
		}
	}
	got, err = e.MessagesToIndex(ctx, []string{"m-gone"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("the drainer got the erased message m-gone: %+v", got)
	}
	release()
	release = func() {}
	if err := <-erased; err != nil {
		t.Fatal(err)
	}
	if err := e.SyncIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	// Nothing orphaned: the lexical index holds no erased message.
	if err := e.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
