package mcpserver

import (
	"testing"

	"github.com/mnemo-go/mnemo/server"
)

// TestDeleteOutputPurgeIncomplete: memory_delete's result says an
// erasure's purge is incomplete, as the DELETE routes' purgeIncomplete
// does (an incomplete purge is a success: the erased turns are unreadable
// already); the tool dropped it. An incomplete purge needs a failing index
// to happen, so the mapping is tested on its own.
func TestDeleteOutputPurgeIncomplete(t *testing.T) {
	res := &server.EraseResult{Messages: []string{"m1"}, PurgeIncomplete: "engine: erasure committed but its physical purge is incomplete: index removal: disk full"}
	if got, want := deleteOutput(res).PurgeIncomplete, res.PurgeIncomplete; got != want {
		t.Fatalf("purgeIncomplete %q, want %q", got, want)
	}
}

// TestDeleteOutputRuns: memory_delete's result counts the run records an
// erasure deleted, as the DELETE routes' runs does; the tool dropped it,
// so an erasure of a thread id with runs only answered with no count.
func TestDeleteOutputRuns(t *testing.T) {
	res := &server.EraseResult{Threads: []string{"ghost2"}, Runs: 2}
	if got := deleteOutput(res).Runs; got != 2 {
		t.Fatalf("runs %d, want 2", got)
	}
}
