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
// Every typed error classify knows has a row (status, field and type),
// and an error matching two conditions gets the first classify tries.
func TestProblemStatus(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		field  string
		slug   string // the type's suffix
	}{
		{"Validation", &engine.ValidationError{Index: 2, Field: "role", Rule: "is unknown"}, 400, "messages[2].role", "invalid-input"},
		{"ValidationRequest", &engine.ValidationError{Index: -1, Field: "threadId", Rule: "holds NUL"}, 400, "threadId", "invalid-input"},
		{"Filter", &recall.FilterError{Path: "seq", Op: "$like", Err: errors.New("unknown operator")}, 400, "recall.filter", "invalid-input"},
		{"Option", &recall.OptionError{Field: "topK", Rule: "must not be negative"}, 400, "recall.topK", "invalid-input"},
		{"QueryThread", &recall.QueryError{Field: "ThreadID", Rule: "reworded: no thread given"}, 400, "recall.scope", "invalid-input"},
		{"QueryResource", &recall.QueryError{Field: "ResourceID", Rule: "no resource"}, 400, "recall", "invalid-input"},
		{"QuerySentinelScopeWords", fmt.Errorf("%w: scope thread needs a thread", recall.ErrInvalidQuery), 400, "recall", "invalid-input"},
		{"Options", fmt.Errorf("%w: mode", recall.ErrInvalidOptions), 400, "recall", "invalid-input"},
		{"Diverged", &engine.DivergenceError{RunID: "r", Differences: []string{"x"}}, 409, "", "replay-diverged"},
		{"DispatchPending", &engine.DispatchPendingError{Index: 1, CallID: "c", RunID: "r", Seq: 3}, 409, "messages[1].toolCalls", "conflict"},
		{"CallOpen", &engine.CallOpenError{Index: 1, CallIndex: 2, CallID: "c", Seq: 3}, 409, "messages[1].toolCalls[2].id", "conflict"},
		{"CallDispatched", &engine.CallDispatchedError{CallID: "c", RunID: "r"}, 409, "callId", "conflict"},
		{"DispatchAnswered", engine.ErrDispatchAnswered, 409, "callId", "conflict"},
		{"DispatchErased", engine.ErrDispatchErased, 409, "runId", "conflict"},
		{"DispatchNotFound", engine.ErrDispatchNotFound, 404, "", "not-found"},
		{"DispatchSettled", engine.ErrDispatchSettled, 409, "result", "conflict"},
		{"Conflict", engine.ErrConflict, 409, "messages", "conflict"},
		{"RunOwned", journal.ErrRunOwned, 409, "runId", "conflict"},
		{"RunExists", journal.ErrRunExists, 409, "runId", "conflict"},
		{"NoWorkingMemory", engine.ErrNoWorkingMemory, 404, "", "working-memory-off"},
		{"WorkingRefused", working.ErrTooLarge, 422, "", "update-refused"},
		{"WorkingKey", working.ErrInvalidKey, 400, "scope", "invalid-input"},
		{"Quota", engine.ErrQuotaExceeded, 429, "messages", "quota-exceeded"},
		{"NoSpace", engine.ErrNoSpace, 507, "", "insufficient-storage"},
		// A working-memory write's error on a full disk is the file
		// system's (or SQLite's), not ErrNoSpace (walk44 F6: 500 internal).
		{"NoSpaceWorking", fmt.Errorf("working: update thread:t1: %w", syscall.ENOSPC), 507, "", "insufficient-storage"},
		{"AnswerTooLarge", &engine.AnswerTooLargeError{Limit: 10, Fields: []string{"recall.topK"}}, 422, "recall.topK", "answer-too-large"},
		{"ReplayTooLarge", &engine.ReplayTooLargeError{RunID: "r", Limit: 10}, 422, "", "answer-too-large"},
		{"EraseBusy", engine.ErrEraseBusy, 503, "", "unavailable"},
		{"WriteBusy", fmt.Errorf("working: update thread:t1: %w", engine.ErrWriteBusy), 503, "", "database-busy"},
		{"DatabaseLocked", fmt.Errorf("read thread: %w", engine.ErrDatabaseLocked), 503, "", "database-locked"},
		{"Closed", engine.ErrClosed, 503, "", "unavailable"},
		{"DispatchConflict", engine.ErrDispatchConflict, 409, "callId", "conflict"},
		// ErrRunErased matches ErrRunOwned, and is answered as it: no
		// tenant learns that another's run was erased.
		{"RunErased", journal.ErrRunErased, 409, "runId", "conflict"},
		{"StoredWorkingMemory", engine.ErrStoredWorkingMemory, 503, "", "working-memory-unavailable"},
		// ErrModeMismatch is working.Refused too: its own kind first.
		{"WorkingModeMismatch", working.ErrModeMismatch, 409, "patch", "working-memory-mode"},
		{"QuotaStore", &engine.QuotaError{Scope: "store", Field: "bytes", Limit: 5}, 429, "messages", "quota-exceeded"},
		{"DatabaseCorrupt", engine.ErrDatabaseCorrupt, 503, "", "database-damaged"},
		{"DatabaseReplaced", fmt.Errorf("engine: %w", engine.ErrDatabaseReplaced), 503, "", "database-replaced"},
		{"WALReplaced", fmt.Errorf("engine: %w", engine.ErrWALReplaced), 503, "", "database-replaced"},
		// An error matching two conditions is answered as the first
		// classify tries.
		{"ConflictAndNoSpace", errors.Join(engine.ErrNoSpace, engine.ErrConflict), 409, "messages", "conflict"},
		{"BusyAndDamaged", errors.Join(engine.ErrDatabaseCorrupt, engine.ErrWriteBusy), 503, "", "database-busy"},
		{"Unknown", errors.New("scope thread"), 500, "", "internal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := server.Describe(fmt.Errorf("step: %w", c.err))
			if p.Status != c.status || p.Field != c.field || p.Type != server.ProblemTypeBase+c.slug {
				t.Errorf("Describe(%v) = status %d field %q type %q, want %d %q %q", c.err, p.Status, p.Field, p.Type, c.status, c.field, c.slug)
			}
		})
	}
}
