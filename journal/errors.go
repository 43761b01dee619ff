package journal

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound is returned by MemCtx and Get when no record exists under the
// key.
var ErrNotFound = errors.New("journal: record not found")

// runNotFoundError is ErrNotFound for a run with no memctx record
// (errors.Is(err, ErrNotFound)), worded as the engine's missing thread is:
// `journal: run not found: "ID"` (it read `journal: record not found: run
// ID`, while the inspector's page said `run "ID" not found`).
type runNotFoundError struct{ runID string }

func (e *runNotFoundError) Error() string {
	return fmt.Sprintf("journal: run not found: %q", e.runID)
}

// Is makes the error ErrNotFound for errors.Is.
func (e *runNotFoundError) Is(target error) bool { return target == ErrNotFound }

// RunPrunedError is ErrNotFound (errors.Is) for a run with no memctx
// record whose id is still claimed by a thread and resource that were not
// erased: retention (retention.keepRuns / maxAge in mnemo.json) pruned its
// record, a salvage of a damaged mnemo.db could not read it (readme59:
// the journal's pages lost, the runs table's kept), or none was ever
// written (only its tool calls were handled).
// ThreadID and ResourceID name the claim's owner: a server shows the
// error only to a caller allowed that resource, and the plain "run not
// found" to anyone else. Its message names neither.
type RunPrunedError struct {
	// RunID is the run asked for.
	RunID string
	// ThreadID is the thread that claims the run id.
	ThreadID string
	// ResourceID is that thread's resource.
	ResourceID string
	// Dispatches are the run's dispatches (BeginDispatch made its tool
	// calls), by call id, at most MaxRunDispatchesNamed of them; nil when
	// it has none.
	Dispatches []Dispatch
	// MoreDispatches reports that the run has more dispatches than
	// Dispatches holds.
	MoreDispatches bool
}

// MaxRunDispatchesNamed is how many of a run's dispatches a
// RunPrunedError holds and names: 3.
const MaxRunDispatchesNamed = 3

// Error says `journal: run not found: "ID": ` and Detail. It names no
// thread or resource.
func (e *RunPrunedError) Error() string {
	return fmt.Sprintf("journal: run not found: %q: %s", e.RunID, e.Detail())
}

// Detail says why the run has no record, RunPrunedDetail, and for a run
// that dispatched calls RunDispatchedDetail and what it holds: `it has
// no memctx record: …; it holds 1 dispatch: call "call_0" of charge_card,
// pending (its outcome is unknown; begun 2026-12-07 02:40:00 UTC)`
// (walk60 L2: a run that only dispatched was said as one that held
// nothing; small64: then as one whose record was pruned). The server's
// 404 (server.Tenant.Run) says it after `run not found: "ID": `, as Error
// does.
func (e *RunPrunedError) Detail() string {
	if len(e.Dispatches) == 0 {
		return RunPrunedDetail
	}
	n := fmt.Sprintf("%d dispatch", len(e.Dispatches))
	if len(e.Dispatches) > 1 {
		n += "es"
	}
	if e.MoreDispatches {
		n = "more than " + n
	}
	parts := make([]string, len(e.Dispatches))
	for i, d := range e.Dispatches {
		parts[i] = fmt.Sprintf("call %q of %s, %s", d.CallID, d.Name, d.State())
	}
	return RunDispatchedDetail + "; it holds " + n + ": " + strings.Join(parts, "; ")
}

// RunPrunedDetail says why a claimed run that dispatched no call has no
// record (RunPrunedError).
const RunPrunedDetail = "its record was pruned by retention (retention.keepRuns / maxAge in mnemo.json), lost with a damaged mnemo.db (mnemo salvage names such a loss), or never written (only its tool calls were handled)"

// RunDispatchedDetail says why a claimed run that dispatched calls
// (BeginDispatch) has no record (RunPrunedError): a run may dispatch
// without loading a context, so "pruned" alone would not be true.
const RunDispatchedDetail = "it has no memctx record: it dispatched tool calls without loading a context, or its record was pruned by retention (retention.keepRuns / maxAge in mnemo.json) or lost with a damaged mnemo.db (mnemo salvage names such a loss)"

// Is makes the error ErrNotFound for errors.Is.
func (e *RunPrunedError) Is(target error) bool { return target == ErrNotFound }

// RunErasedError is ErrNotFound and ErrRunErased (errors.Is; not
// ErrRunOwned) for a run with no memctx record whose id's claim has an
// erased owner: its thread was deleted (expired, evicted) or its resource
// erased. It is worded as LoadContext's refusal of the id
// (ErrRunErased): `journal: run not found: "ID": the run id's thread was
// erased` (walk60 L3: MemCtx and Replay said the plain "run not found"
// while LoadContext said the thread was erased).
type RunErasedError struct {
	// RunID is the run asked for.
	RunID string
	// ResourceID is the erased thread's resource when that resource was
	// not erased itself, "" when it was (its tombstone names no one): a
	// server says "erased" only to a caller allowed it, and the plain
	// "run not found" to anyone else. The message does not name it.
	ResourceID string
}

// RunErasedDetail says why a run of an erased thread has no record
// (RunErasedError): ErrRunErased's words.
const RunErasedDetail = "the run id's thread was erased"

// Error says `journal: run not found: "ID": ` and RunErasedDetail.
func (e *RunErasedError) Error() string {
	return fmt.Sprintf("journal: run not found: %q: %s", e.RunID, RunErasedDetail)
}

// Is makes the error ErrNotFound and ErrRunErased for errors.Is.
func (e *RunErasedError) Is(target error) bool {
	return target == ErrNotFound || target == ErrRunErased
}

// dispatchNotFoundError is ErrNotFound for a dispatch never begun (or
// erased), worded as runNotFoundError: `journal: dispatch not found: call
// "C" of run "R"` (it read `journal: record not found: dispatch of call
// "C" in run "R"`).
type dispatchNotFoundError struct{ runID, callID string }

func (e *dispatchNotFoundError) Error() string {
	return fmt.Sprintf("journal: dispatch not found: call %q of run %q", e.callID, e.runID)
}

// Is makes the error ErrNotFound for errors.Is.
func (e *dispatchNotFoundError) Is(target error) bool { return target == ErrNotFound }

// ErrRunExists is returned by PutMemCtx and CheckNewRun when a memctx
// record already exists for the run id and the caller did not ask to
// replace it.
var ErrRunExists = errors.New("journal: run id already has a memctx record")

// ErrRunOwned is returned by ClaimRun, CheckRun, CheckNewRun and PutMemCtx
// when the run id belongs to another thread or resource (a run id is owned
// by the one thread that first used it). Its text names neither.
var ErrRunOwned = errors.New("journal: run id belongs to another thread")

// ErrRunErased is returned where ErrRunOwned would be (ClaimRun,
// ClaimRunTx, CheckRun, CheckNewRun, PutMemCtx) when the run id's owner
// was erased: an erasure gave its claim an opaque owner (TombstonePrefix),
// which keeps the run id claimed, so a run in flight when its thread or
// resource was erased writes nothing back. It matches ErrRunOwned too
// (errors.Is). Its text names no owner: "journal: the run id's thread
// was erased: <runId>".
var ErrRunErased error = runErasedError{}

type runErasedError struct{}

func (runErasedError) Error() string { return "journal: " + RunErasedDetail }

// Is makes the error ErrRunOwned for errors.Is, as it was before it had
// its own text.
func (runErasedError) Is(target error) bool { return target == ErrRunOwned }

// ErrRunContextErased is returned by a run's working-memory write (engine
// HandleToolCall, working.Memory with a run id) when the run's memctx
// record is marked by an erasure since it was recorded (MemCtx.ContextErased:
// DeleteMessages, or a recalled turn of a deleted thread, removed a turn
// the run's context held): what the run derived from it is not
// stored. It matches ErrRunErased, and so ErrRunOwned, for errors.Is. Its
// text names the run only: "journal: the run's context holds an erased
// turn: <runId>".
var ErrRunContextErased error = runContextErasedError{}

type runContextErasedError struct{}

func (runContextErasedError) Error() string {
	return "journal: the run's context holds an erased turn"
}

// Is makes the error ErrRunErased and ErrRunOwned for errors.Is.
func (runContextErasedError) Is(target error) bool {
	return target == ErrRunErased || target == ErrRunOwned
}

// ErrCallReused is returned by ApplyInput when the tool call id was already
// applied in the run (same thread and resource) for another call: another
// function or other arguments. Nothing is run or recorded.
var ErrCallReused = errors.New("journal: tool call id already applied in this run for another call")
