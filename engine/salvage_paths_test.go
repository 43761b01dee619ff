package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/working"
)

// TestSalvageWorkingMemoryAndReplay: working memory written through the
// engine's working-memory API (two versions of a thread's state) survives
// a salvage whole, history included; and a run whose memctx quoted a
// message the salvage lost (the long one, its overflow page garbled)
// replays as diverged, reporting that turn as no longer stored, as for an
// erased one.
func TestSalvageWorkingMemoryAndReplay(t *testing.T) {
	ctx := context.Background()
	dir := salvageFixture(t, false)
	wmCfg := &working.Config{Mode: working.ModeTemplate, Scope: working.ScopeThread, Template: "# Notes\n"}
	e, err := engine.Open(ctx, engine.Config{Dir: dir, WorkingMemory: wmCfg})
	if err != nil {
		t.Fatal(err)
	}
	wm, err := e.WorkingMemory()
	if err != nil {
		t.Fatal(err)
	}
	key, err := wm.Key("t2", "r")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"# Notes\nAna lives in Lisbon.\n", "# Notes\nAna moved to Porto.\n"} {
		if _, err := wm.Set(ctx, key, c, working.Origin{RunID: "run-wm2"}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := wm.Get(ctx, key)
	if err != nil || want.Version != 2 {
		t.Fatalf("working memory: %+v %v", want, err)
	}
	if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "run-long", ThreadID: "t2", RecentN: 3}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, engine.DatabaseFile)
	before := soundRows(t, dir)
	garbleOverflow(t, path)
	rep, err := engine.Salvage(ctx, engine.Config{Dir: dir, WorkingMemory: wmCfg}, engine.SalvageOptions{})
	if err != nil || rep.LostMessages() != 1 || len(rep.Problems) > 0 {
		t.Fatalf("salvage: %v %+v", err, rep)
	}
	after := dumpRows(t, path)
	for _, tb := range []string{"working_memory", "working_memory_history"} {
		if len(before[tb]) == 0 || len(after[tb]) != len(before[tb]) {
			t.Fatalf("%s: %d rows salvaged of %d", tb, len(after[tb]), len(before[tb]))
		}
	}
	compareSalvaged(t, before, after, []string{"messages"})
	e, err = engine.Open(ctx, engine.Config{Dir: dir, WorkingMemory: wmCfg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if wm, err = e.WorkingMemory(); err != nil {
		t.Fatal(err)
	}
	got, err := wm.Get(ctx, key)
	if err != nil || got.Content != want.Content || got.Version != 2 {
		t.Fatalf("working memory after the salvage: %+v %v, want %+v", got, err, want)
	}
	if h, err := wm.History(ctx, key, 10); err != nil || len(h) != 2 {
		t.Fatalf("history after the salvage: %+v %v", h, err)
	}
	_, err = e.Replay(ctx, "run-long", engine.ReplayOptions{})
	if !errors.Is(err, engine.ErrReplayDiverged) || !strings.Contains(err.Error(), "t2 #151") || !strings.Contains(err.Error(), "no longer stored") {
		t.Fatalf("replay of a run that quoted a lost message: %v", err)
	}
}
