package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// TestReplayNamesDispatches: mnemo replay and memctx of a run that only
// dispatched tool calls (BeginDispatch claims the run; no memctx record)
// say what it holds, each dispatch by call, tool and state (walk60 L2:
// they said only "… or never written (only its tool calls were
// handled)"); of a run of an erased thread they say the thread was
// erased, in the words LoadContext refuses the run id with (walk60 L3:
// they said the plain "run not found").
func TestReplayNamesDispatches(t *testing.T) {
	dir := pendingDispatchDirs(t)
	for _, c := range []struct{ run, want string }{
		{"run-1", `: run not found: "run-1": ` + journal.RunDispatchedDetail + `; it holds 1 dispatch: call "call_0" of charge_card, pending (its outcome is unknown; begun 20`},
		{"run-2", `: run not found: "run-2": ` + journal.RunDispatchedDetail + `; it holds 1 dispatch: call "call_0" of refund, settled 20`},
		{"run-3", `: run not found: "run-3": the run id's thread was erased` + "\n"},
	} {
		for _, args := range [][]string{{"replay", c.run}, {"replay", "--json", c.run}, {"memctx", c.run}, {"memctx", "--json", c.run},
			{"memctx", "--html", filepath.Join(t.TempDir(), "run.html"), c.run}} {
			code, stdout, stderr := run(t, nil, append([]string{"--dir", dir}, args...)...)
			if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "mnemo "+args[0]+c.want) {
				t.Errorf("mnemo %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(args, " "), code, stdout, stderr, "mnemo "+args[0]+c.want)
			}
		}
	}
	e, err := engine.Open(context.Background(), engine.Config{Dir: dir, Embedder: recall.HashEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = e.LoadContext(context.Background(), engine.LoadRequest{RunID: "run-3", ThreadID: "gone", ResourceID: "r"})
	if err == nil || !strings.Contains(err.Error(), "the run id's thread was erased") {
		t.Errorf("LoadContext under run-3: %v; want it to say the thread was erased as replay does", err)
	}
}
