package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/working"
)

// TestReplayErasedWorkingMemoryVersion is wmver1's walk: v1 Lyon, v2
// Porto (by a run that saw the Lyon turn), run-3 on another thread of the
// resource renders v2; erasing the Lyon turn takes v1 and v2 and clears
// the state under v3. The record names v2, and replay says v2 was erased
// (ErrWorkingMemoryErased beside ErrReplayDiverged), not that the working
// memory renders to another length; a counterfactual without working
// memory is refused alike. A record written before the version was
// recorded replays as before: by the version in force at its time.
func TestReplayErasedWorkingMemoryVersion(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		w := newWMEnv(t, be)
		appendTo(t, w.e, "a", "r", user("lyon", "I live in Lyon."))
		w.run(engine.LoadRequest{RunID: "run-1", ThreadID: "a"}, "call_0", `{"city":"Lyon"}`)
		appendTo(t, w.e, "a", "r", user("", "I live in Porto now."))
		w.run(engine.LoadRequest{RunID: "run-2", ThreadID: "a"}, "call_0", `{"city":"Porto"}`)
		appendTo(t, w.e, "b", "r", user("", "What is the weather like?"))
		c, err := w.e.LoadContext(ctx, engine.LoadRequest{RunID: "run-3", ThreadID: "b"})
		if err != nil {
			t.Fatal(err)
		}
		if v := c.MemCtx.WorkingMemoryVersion; v == nil || *v != 2 || c.MemCtx.WorkingMemoryScope != "resource" {
			t.Fatalf("run-3's record: workingMemoryScope %q, workingMemoryVersion %v; want resource, 2", c.MemCtx.WorkingMemoryScope, v)
		}
		old := writeOldRecord(t, w.e, "run-3", "run-4")
		for _, run := range []string{"run-3", old} {
			if _, err := w.e.Replay(ctx, run, engine.ReplayOptions{}); err != nil {
				t.Fatalf("replay of %s before the erasure: %v", run, err)
			}
		}
		if _, err := w.e.DeleteMessages(ctx, "lyon"); err != nil {
			t.Fatal(err)
		}
		for _, opt := range []engine.ReplayOptions{{}, {WithoutWorkingMemory: true}} {
			_, err = w.e.Replay(ctx, "run-3", opt)
			if !errors.Is(err, engine.ErrWorkingMemoryErased) || !errors.Is(err, engine.ErrReplayDiverged) {
				t.Fatalf("replay of run-3 (%+v) after the erasure: %v, want ErrWorkingMemoryErased and ErrReplayDiverged", opt, err)
			}
			if want := "working memory v2 of resource:r was erased (an erasure removed it with the turns it was derived from, the state is v3 now); the run's context cannot be reproduced"; !strings.Contains(err.Error(), want) {
				t.Errorf("replay of run-3: %v, want %q", err, want)
			}
		}
		_, err = w.e.Replay(ctx, old, engine.ReplayOptions{})
		if !errors.Is(err, engine.ErrReplayDiverged) || errors.Is(err, engine.ErrWorkingMemoryErased) || !strings.Contains(err.Error(), "working memory renders to") {
			t.Errorf("replay of the old record after the erasure: %v, want the size divergence of a record naming no version", err)
		}
	})
}

// writeOldRecord stores run's record under the new run id as a record of
// before workingMemoryScope and workingMemoryVersion were recorded, and
// returns that id.
func writeOldRecord(t *testing.T, e *engine.Engine, run, as string) string {
	t.Helper()
	return writeRecordWithout(t, e, run, as, "workingMemoryScope", "workingMemoryVersion")
}

// writeRecordWithout stores run's record under the new run id without the
// fields named, as a record written before they were recorded, and
// returns that id.
func writeRecordWithout(t *testing.T, e *engine.Engine, run, as string, fields ...string) string {
	t.Helper()
	ctx := context.Background()
	b, err := e.Journal().RawMemCtx(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		delete(m, f)
	}
	m["runId"] = as
	b, _ = json.Marshal(m)
	var rec journal.MemCtx
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if err := e.Journal().PutMemCtx(ctx, &rec, false); err != nil {
		t.Fatal(err)
	}
	return as
}

// TestMemCtxWorkingMemoryVersion: a record names the version its run
// rendered, 0 for a state never written, and nothing when working memory
// is off; replay of the version-0 run reproduces its prompt.
func TestMemCtxWorkingMemoryVersion(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		w := newWMEnv(t, be)
		appendTo(t, w.e, "c", "r2", user("", "hello"))
		c, err := w.e.LoadContext(ctx, engine.LoadRequest{RunID: "c-1", ThreadID: "c"})
		if err != nil {
			t.Fatal(err)
		}
		if v := c.MemCtx.WorkingMemoryVersion; v == nil || *v != 0 {
			t.Errorf("workingMemoryVersion of a state never written = %v, want 0", v)
		}
		if _, err := w.e.Replay(ctx, "c-1", engine.ReplayOptions{}); err != nil {
			t.Errorf("replay of the version-0 run: %v", err)
		}
		off := be.MustOpen(t, engine.Config{})
		appendTo(t, off, "d", "r", user("", "hello"))
		c, err = off.LoadContext(ctx, engine.LoadRequest{RunID: "d-1", ThreadID: "d"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(c.MemCtx)
		if strings.Contains(string(b), `"workingMemoryVersion"`) || strings.Contains(string(b), `"workingMemoryScope"`) {
			t.Errorf("working memory off, the record names a working memory: %s", b)
		}
	})
}

// TestReplayRebuiltWorkingMemory is rep42's walk: v1 Oslo (run-0 on
// thread b), v2 Lyon (run-1 on thread a, which saw the Lyon turn), v3
// adds the pet (run-2 on b), and run-3 on b renders v3. Erasing the Lyon
// turn drops v2 and rebuilds v3 as Oslo with the pet: the same length,
// another content. Replay of run-3 names working memory v3 as the part
// that differs (the record's workingMemoryHash), not the prompt hash; a
// record written before the hash was recorded keeps the old message.
func TestReplayRebuiltWorkingMemory(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		w := newWMEnv(t, be)
		appendTo(t, w.e, "b", "r", user("", "I lived in Oslo."))
		w.run(engine.LoadRequest{RunID: "run-0", ThreadID: "b"}, "call_0", `{"city":"Oslo"}`)
		appendTo(t, w.e, "a", "r", user("lyon", "I live in Lyon."))
		w.run(engine.LoadRequest{RunID: "run-1", ThreadID: "a"}, "call_0", `{"city":"Lyon"}`)
		appendTo(t, w.e, "b", "r", user("", "I have a dog."))
		w.run(engine.LoadRequest{RunID: "run-2", ThreadID: "b"}, "call_0", `{"pet":"dog"}`)
		c, err := w.e.LoadContext(ctx, engine.LoadRequest{RunID: "run-3", ThreadID: "b"})
		if err != nil {
			t.Fatal(err)
		}
		if v := c.MemCtx.WorkingMemoryVersion; v == nil || *v != 3 || !strings.HasPrefix(c.MemCtx.WorkingMemoryHash, "sha256:") {
			t.Fatalf("run-3's record: workingMemoryVersion %v, workingMemoryHash %q; want 3 and a sha256", v, c.MemCtx.WorkingMemoryHash)
		}
		old := writeRecordWithout(t, w.e, "run-3", "run-4", "workingMemoryHash")
		if _, err := w.e.DeleteMessages(ctx, "lyon"); err != nil {
			t.Fatal(err)
		}
		if v3, err := w.mem.GetVersion(ctx, working.ResourceKey("r"), 3); err != nil || strings.Contains(v3.Content, "Lyon") {
			t.Fatalf("v3 after the erasure: %q, %v; want it rebuilt without Lyon", v3.Content, err)
		}
		_, err = w.e.Replay(ctx, "run-3", engine.ReplayOptions{})
		if !errors.Is(err, engine.ErrReplayDiverged) || errors.Is(err, engine.ErrWorkingMemoryErased) {
			t.Fatalf("replay of run-3 after the erasure: %v, want ErrReplayDiverged alone", err)
		}
		want := fmt.Sprintf("working memory v3 of resource:r was rebuilt by an erasure since the run: its content is not the one the run rendered (it renders to the same length, %d characters)", c.MemCtx.WorkingMemoryChars)
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "prompt hash") {
			t.Errorf("replay of run-3: %v\nwant %q and no prompt hash sentence", err, want)
		}
		_, err = w.e.Replay(ctx, old, engine.ReplayOptions{})
		if !errors.Is(err, engine.ErrReplayDiverged) || !strings.Contains(err.Error(), "prompt hash") {
			t.Errorf("replay of the record without workingMemoryHash: %v, want the prompt hash divergence", err)
		}
	})
}
