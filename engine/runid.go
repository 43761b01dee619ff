package engine

import (
	"errors"
	"slices"
	"strconv"
)

// Run ids of working-memory versions written outside a run. A state set
// through the HTTP API (PUT /v1/…/working-memory), the MCP tool
// working_memory_update or `mnemo wm set` records one of them as its
// version's run (working.Origin.RunID), so that its history says where it
// came from. They name no run: LoadContext, BeginDispatch and
// HandleToolCall refuse them as a run id (ErrReservedRunID). A run under
// one would tie every version written so to the run's thread, and an
// erasure of that thread (DeleteThread, an expiry) would then invalidate
// them with the thread's own.
const (
	RunIDHTTP  = "mnemo-http-api" // the HTTP API's working-memory writes
	RunIDMCP   = "mnemo-mcp"      // the MCP tool working_memory_update
	RunIDWMSet = "mnemo-wm-set"   // `mnemo wm set`
)

// reservedRunIDs are the run ids no run may take.
var reservedRunIDs = []string{RunIDHTTP, RunIDMCP, RunIDWMSet}

// ErrReservedRunID is matched (through a *ValidationError on runId, which
// matches ErrInvalidInput too) by the error LoadContext, BeginDispatch and
// HandleToolCall return for a run id reserved for working-memory writes
// outside a run (RunIDHTTP, RunIDMCP, RunIDWMSet). Nothing is recorded.
var ErrReservedRunID = errors.New("engine: run id reserved for working-memory writes outside a run")

// reservedRunRule is the rule a reserved run id breaks.
var reservedRunRule = "must not be " + strconv.Quote(RunIDHTTP) + ", " + strconv.Quote(RunIDMCP) + " or " +
	strconv.Quote(RunIDWMSet) + " (reserved: the run id of working-memory versions written outside a run, through the HTTP API, MCP or mnemo wm set)"

// checkRunID refuses id, a new run's id given by the caller, when it is
// reserved: a *ValidationError on runId matching ErrReservedRunID.
func checkRunID(id string) error {
	if !slices.Contains(reservedRunIDs, id) {
		return nil
	}
	return &ValidationError{Index: -1, Field: "runId", Rule: reservedRunRule, Got: strconv.Quote(id), Err: ErrReservedRunID}
}
