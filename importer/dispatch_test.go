package importer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/importer"
	"github.com/mnemo-go/mnemo/internal/enginetest"
)

// TestJSONLDispatch: a "dispatch" line restores its dispatch after the
// messages before it are stored (engine.RestoreDispatch), once: the same
// line again is counted as stored already. A line that cannot be restored
// as it says is skipped naming why: a missing member, a state, time or
// member of the wrong kind, a call message not stored, a dispatch stored
// otherwise.
func TestJSONLDispatch(t *testing.T) {
	ctx := context.Background()
	e := enginetest.MustOpen(t, engine.Config{})
	const d = `{"type":"dispatch","thread":"t","resource":"r","run":"run-1","call_id":"call_0","name":"charge_card","message_id":"m2",`
	lines := []struct{ line, reason string }{
		{`{"thread":"t","resource":"r","id":"m1","role":"user","content":"pay"}`, ""},
		{`{"thread":"t","resource":"r","id":"m2","role":"assistant","content":"","tool_calls":[{"id":"call_0","name":"charge_card","arguments":{"amount":5}}]}`, ""},
		{d + `"state":"pending","begun_at":"2026-03-02T09:00:00.5Z"}`, ""},
		{d + `"state":"pending","begun_at":"2026-03-02T09:00:00.5Z"}`, ""},
		{d + `"state":"done","begun_at":"2026-03-02T09:00:00.5Z"}`, `"state" must be "pending", "settled" or "failed", got "done"`},
		{`{"type":"dispatch","thread":"t","resource":"r","call_id":"call_0","name":"x","message_id":"m2","state":"pending","begun_at":"2026-03-02T09:00:00Z"}`, `"run" is required in a "dispatch" line`},
		{d + `"state":"pending","begun_at":1772442000000}`, `"begun_at" must be an RFC 3339 string, got a number`},
		{d + `"state":"pending"}`, `"begun_at" is required in a "dispatch" line`},
		{d + `"state":"settled","begun_at":"2026-03-02T09:00:00Z"}`, `"result_id" is required in a "settled" dispatch`},
		{d + `"state":"pending","result_id":"m3","begun_at":"2026-03-02T09:00:00Z"}`, `a "pending" dispatch has no "result_id" or "settled_at"`},
		{d + `"state":"pending","begun_at":"2026-03-02T09:00:00Z","arguments":{}}`, `unknown field "arguments"`},
		{strings.Replace(d, `"m2"`, `"m9"`, 1) + `"state":"pending","begun_at":"2026-03-02T09:00:00Z"}`, `invalid messageId: "m9" is not a stored message of thread "t"`},
		{d + `"state":"pending","begun_at":"2026-03-02T09:00:01Z"}`, `call "call_0" of run "run-1" is stored as another dispatch`},
		{`{"type":"dispatches","thread":"t"}`, `unknown item type "dispatches" (did you mean "dispatch"?)`},
	}
	var body strings.Builder
	var want []string
	for i, l := range lines {
		body.WriteString(l.line + "\n")
		if l.reason != "" {
			want = append(want, fmt.Sprintf("line %d: %s", i+1, l.reason))
		}
	}
	rep, err := importer.Import(ctx, e, writeFile(t, "d.jsonl", body.String()), importer.Options{})
	if err != nil || rep.Messages != 2 || rep.Dispatches != 1 || rep.DispatchesSame != 1 || rep.Skipped != len(want) {
		t.Fatalf("report %+v, %v; want 2 messages, 1 dispatch restored, 1 already stored, %d skipped", rep, err, len(want))
	}
	for i, p := range rep.Problems {
		if got := p.Where + ": " + p.Reason(); !strings.HasPrefix(got, want[i][:strings.Index(want[i], ": ")+2]) || !strings.Contains(got, want[i][strings.Index(want[i], ": ")+2:]) {
			t.Errorf("problem %d: %q, want %q", i, got, want[i])
		}
	}
	us, err := e.Unsettled(ctx, "t", "r")
	if err != nil || len(us) != 1 || us[0].RunID != "run-1" || !us[0].BegunAt.Equal(time.Date(2026, 3, 2, 9, 0, 0, 5e8, time.UTC)) || string(us[0].Arguments) != `{"amount":5}` {
		t.Errorf("unsettled %+v, %v", us, err)
	}
}
