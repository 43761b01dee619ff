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
