package server_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/server"
	"github.com/mnemo-go/mnemo/working"
)

// TestProblemStatus: Describe classifies each error the engine and recall
// return by its type or sentinel, never by its text: each case is wrapped
// once more by a caller's step phrase, and a sentinel carrying another
// condition's words (ErrInvalidQuery saying "scope thread") keeps its own
// status and field. The "scope thread" case was matched by message text.
func TestProblemStatus(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		field  string
	}{
		{"Validation", &engine.ValidationError{Index: 2, Field: "role", Rule: "is unknown"}, 400, "messages[2].role"},
		{"ValidationRequest", &engine.ValidationError{Index: -1, Field: "threadId", Rule: "holds NUL"}, 400, "threadId"},
		{"Filter", &recall.FilterError{Path: "seq", Op: "$like", Err: errors.New("unknown operator")}, 400, "recall.filter"},
		{"Option", &recall.OptionError{Field: "topK", Rule: "must not be negative"}, 400, "recall.topK"},
		{"QueryThread", &recall.QueryError{Field: "ThreadID", Rule: "reworded: no thread given"}, 400, "recall.scope"},
		{"QueryResource", &recall.QueryError{Field: "ResourceID", Rule: "no resource"}, 400, "recall"},
		{"QuerySentinelScopeWords", fmt.Errorf("%w: scope thread needs a thread", recall.ErrInvalidQuery), 400, "recall"},
		{"Options", fmt.Errorf("%w: mode", recall.ErrInvalidOptions), 400, "recall"},
		{"Diverged", &engine.DivergenceError{RunID: "r", Differences: []string{"x"}}, 409, ""},
		{"DispatchPending", &engine.DispatchPendingError{Index: 1, CallID: "c", RunID: "r", Seq: 3}, 409, "messages[1].toolCalls"},
		{"CallOpen", &engine.CallOpenError{Index: 1, CallIndex: 2, CallID: "c", Seq: 3}, 409, "messages[1].toolCalls[2].id"},
		{"CallDispatched", &engine.CallDispatchedError{CallID: "c", RunID: "r"}, 409, "callId"},
		{"DispatchAnswered", engine.ErrDispatchAnswered, 409, "callId"},
		{"DispatchErased", engine.ErrDispatchErased, 409, "runId"},
		{"DispatchNotFound", engine.ErrDispatchNotFound, 404, ""},
		{"DispatchSettled", engine.ErrDispatchSettled, 409, "result"},
		{"Conflict", engine.ErrConflict, 409, "messages"},
		{"RunOwned", journal.ErrRunOwned, 409, "runId"},
		{"RunExists", journal.ErrRunExists, 409, "runId"},
		{"NoWorkingMemory", engine.ErrNoWorkingMemory, 404, ""},
		{"WorkingRefused", working.ErrTooLarge, 422, ""},
		{"WorkingKey", working.ErrInvalidKey, 400, "scope"},
		{"Quota", engine.ErrQuotaExceeded, 429, "messages"},
		{"NoSpace", engine.ErrNoSpace, 507, ""},
		// A working-memory write's error on a full disk is the file
		// system's (or SQLite's), not ErrNoSpace (walk44 F6: 500 internal).
		{"NoSpaceWorking", fmt.Errorf("working: update thread:t1: %w", syscall.ENOSPC), 507, ""},
		{"AnswerTooLarge", &engine.AnswerTooLargeError{Limit: 10, Fields: []string{"recall.topK"}}, 422, "recall.topK"},
		{"ReplayTooLarge", &engine.ReplayTooLargeError{RunID: "r", Limit: 10}, 422, ""},
		{"EraseBusy", engine.ErrEraseBusy, 503, ""},
		{"WriteBusy", fmt.Errorf("working: update thread:t1: %w", engine.ErrWriteBusy), 503, ""},
		{"DatabaseLocked", fmt.Errorf("read thread: %w", engine.ErrDatabaseLocked), 503, ""},
		{"Closed", engine.ErrClosed, 503, ""},
		{"Unknown", errors.New("scope thread"), 500, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := server.Describe(fmt.Errorf("step: %w", c.err))
			if p.Status != c.status || p.Field != c.field {
				t.Errorf("Describe(%v) = status %d field %q, want %d %q", c.err, p.Status, p.Field, c.status, c.field)
			}
		})
	}
}
