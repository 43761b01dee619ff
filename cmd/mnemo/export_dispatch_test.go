package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/pgstore/pgtest"
	"github.com/mnemo-go/mnemo/journal"
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

// settledRefund is the settlement of the refund pendingDispatchDirs adds
// on thread u.
var settledRefund = engine.Settlement{RunID: "run-2", ResourceID: "r", CallID: "call_0", Result: "refunded 20 euros"}

// pendingDispatchDirs is pendingDispatchDir with a second thread, u of r,
// whose call call_0 of refund (run-2) was dispatched and settled, and a
// thread gone of r with a pending dispatch (run-3), erased.
func pendingDispatchDirs(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := pendingDispatchDir(t)
	e, err := engine.Open(ctx, engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, th := range []struct{ thread, run, tool string }{{"u", "run-2", "refund"}, {"gone", "run-3", "charge_card"}} {
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: th.thread, ResourceID: "r",
			Messages: []engine.Message{{ID: th.thread + "1", Role: "user", Content: "please " + th.tool}}}); err != nil {
			t.Fatal(err)
		}
		call := engine.Message{ID: th.thread + "2", Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_0", Name: th.tool, Arguments: json.RawMessage(`{"amount":20}`)}}}
		if _, err := e.BeginDispatch(ctx, engine.DispatchIntent{RunID: th.run, ThreadID: th.thread, ResourceID: "r", Message: call}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.SettleDispatch(ctx, settledRefund); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeleteThread(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExportCarriesDispatches: walk43 F1. An export of a thread holding a
// dispatch of unknown outcome wrote the call and not its dispatch (it
// warned that it did not carry it); imported, the call was dropped as
// unpaired and the "Outcome unknown … do not repeat" result with it, so
// an agent on the target could charge the card again. Now each dispatch,
// pending or settled, follows its thread's messages as a "dispatch" line,
// and ingest restores it: the target lists the same call as unsettled,
// gives it the synthetic result, and answers a retried settlement or
// begin of the settled one as the source does. An erased thread's
// dispatch is not written.
func TestExportCarriesDispatches(t *testing.T) {
	src := pendingDispatchDirs(t)
	tmp := t.TempDir()
	file, target := filepath.Join(tmp, "out.jsonl"), filepath.Join(tmp, "target")
	code, out, stderr := run(t, nil, "--dir", src, "export", file)
	if code != 0 || out != "exported 1 resource, 2 threads, 5 messages, 2 dispatches to "+file+"\n" || stderr != "" {
		t.Fatalf("export: exit %d\n%s%s", code, out, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"dispatch","thread":"t","resource":"r","run":"run-1","call_id":"call_0","name":"charge_card","message_id":"m2","state":"pending","begun_at":"`
	if !strings.Contains(string(b), want) || strings.Contains(string(b), "run-3") || strings.Count(string(b), `"type":"dispatch"`) != 2 {
		t.Fatalf("the file does not hold the dispatches (or holds the erased one):\n%s", b)
	}
	code, out, stderr = run(t, nil, "--dir", target, "ingest", "--strict", file)
	if code != 0 || !strings.Contains(out, "5 messages stored, 0 already stored, 0 skipped; 2 dispatches restored, 0 already stored") {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, nil, "--dir", target, "ingest", file)
	if code != 0 || !strings.Contains(out, "0 dispatches restored, 2 already stored") {
		t.Fatalf("ingest again: exit %d\n%s%s", code, out, stderr)
	}
	sameDispatches(t, engine.Config{Dir: src}, engine.Config{Dir: target})
}

// TestExportCarriesDispatchesPostgres is TestExportCarriesDispatches into
// Postgres (--db), exported again from there: the same file, byte for
// byte. It skips without MNEMO_TEST_POSTGRES.
func TestExportCarriesDispatchesPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	src := pendingDispatchDirs(t)
	tmp := t.TempDir()
	file, file2 := filepath.Join(tmp, "out.jsonl"), filepath.Join(tmp, "again.jsonl")
	if code, out, stderr := run(t, nil, "--dir", src, "export", file); code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := run(t, nil, "--db", dsn, "ingest", "--strict", file)
	if code != 0 || !strings.Contains(out, "2 dispatches restored, 0 already stored") {
		t.Fatalf("ingest --db: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, nil, "--db", dsn, "export", file2); code != 0 || !strings.Contains(out, "2 dispatches") {
		t.Fatalf("export --db: exit %d\n%s%s", code, out, stderr)
	}
	one, _ := os.ReadFile(file)
	two, _ := os.ReadFile(file2)
	if string(one) != string(two) {
		t.Errorf("export of the import differs:\n%s\n%s", one, two)
	}
	sameDispatches(t, engine.Config{Dir: src}, engine.Config{Postgres: dsn})
}

// sameDispatches checks that the store of to holds the dispatches of
// pendingDispatchDirs as the store of from does: thread t's call call_0
// unsettled (same run, message and begin time) with its synthetic result
// in a context, and thread u's settled, so that settling it again with
// the same result, or beginning it again under its run, returns it.
func sameDispatches(t *testing.T, from, to engine.Config) {
	t.Helper()
	ctx := context.Background()
	open := func(cfg engine.Config) *engine.Engine {
		cfg.Embedder = recall.HashEmbedder{}
		e, err := engine.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	a, z := open(from), open(to)
	ua, err := a.Unsettled(ctx, "t", "r")
	if err != nil {
		t.Fatal(err)
	}
	uz, err := z.Unsettled(ctx, "t", "r")
	if err != nil || len(uz) != 1 || len(ua) != 1 || uz[0].RunID != ua[0].RunID || uz[0].MessageID != ua[0].MessageID ||
		uz[0].CallID != "call_0" || !uz[0].BegunAt.Equal(ua[0].BegunAt) || string(uz[0].Arguments) != string(ua[0].Arguments) {
		t.Fatalf("unsettled in the target: %+v, %v; in the source %+v", uz, err, ua)
	}
	c, err := z.LoadContext(ctx, engine.LoadRequest{ThreadID: "t", ResourceID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	synthetic := 0
	for _, m := range c.Messages {
		if m.Reason == journal.ReasonUnsettled && m.ToolCallID == "call_0" {
			synthetic++
		}
	}
	if synthetic != 1 {
		t.Errorf("the target's context gives call_0 %d synthetic results, want 1: %+v", synthetic, c.Messages)
	}
	if d, err := z.SettleDispatch(ctx, settledRefund); err != nil || !d.Settled || d.ResultID == "" {
		t.Errorf("settling the settled refund again in the target: %+v, %v", d, err)
	}
	call := engine.Message{ID: "u2", Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "call_0", Name: "refund", Arguments: json.RawMessage(`{"amount":20}`)}}}
	if d, err := z.BeginDispatch(ctx, engine.DispatchIntent{RunID: "run-2", ThreadID: "u", ResourceID: "r", Message: call}); err != nil || !d.Settled {
		t.Errorf("beginning the settled refund again in the target: %+v, %v", d, err)
	}
}
