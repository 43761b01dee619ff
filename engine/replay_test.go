package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
	"github.com/mnemo-go/mnemo/tools"
	"github.com/mnemo-go/mnemo/working"
)

func TestReplayReproducesPromptHash(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		toolThread(t, e, "t")
		// An unpaired call at the end: the run drops it.
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{
			{Role: "assistant", ToolCalls: []engine.ToolCall{{ID: "c9", Name: "quote", Arguments: json.RawMessage(`{}`)}}},
		}}); err != nil {
			t.Fatal(err)
		}
		for _, recent := range []int{3, 7} { // 3: the window extends back to the call (repair); 7: whole thread
			run := fmt.Sprintf("run-%d", recent)
			c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "t", RecentN: recent})
			if err != nil {
				t.Fatal(err)
			}
			if c.MemCtx.DroppedCount != 1 {
				t.Fatalf("%s dropped %d, want 1", run, c.MemCtx.DroppedCount)
			}
			// Later turns must not change the replay.
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{user("", "later "+run)}}); err != nil {
				t.Fatal(err)
			}
			r, err := e.Replay(ctx, run, engine.ReplayOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Original.PromptHash != c.PromptHash || seqs(r.Original.Messages) != seqs(c.Messages) {
				t.Fatalf("%s replay %s %s, run %s %s", run, r.Original.PromptHash, seqs(r.Original.Messages), c.PromptHash, seqs(c.Messages))
			}
			if r.Counterfactual.PromptHash != c.PromptHash || len(r.Removed) != 0 {
				t.Fatalf("%s: a replay without removals changed the prompt", run)
			}
		}
	})
}

func TestReplayBeyondRecentCap(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		var msgs []engine.Message
		for i := range 60 {
			msgs = append(msgs, user(fmt.Sprintf("m%d", i), fmt.Sprintf("turn %d", i)))
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "t", ResourceID: "r", Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "big", ThreadID: "t", RecentN: 50})
		if err != nil {
			t.Fatal(err)
		}
		e.Append(ctx, engine.AppendRequest{ThreadID: "t", Messages: []engine.Message{user("", "after")}})
		r, err := e.Replay(ctx, "big", engine.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Original.PromptHash != c.PromptHash {
			t.Fatal("replay of a 50-turn window (record lists 24) did not reproduce the hash")
		}
	})
}

func TestReplayCounterfactualKeepsToolGroupsWhole(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		toolThread(t, e, "t")
		if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "r1", ThreadID: "t", RecentN: 6}); err != nil {
			t.Fatal(err)
		}
		// Removing the result of c2 (seq 4) removes its call (2) and c1's result (3).
		r, err := e.Replay(ctx, "r1", engine.ReplayOptions{WithoutTurns: []engine.TurnRef{{ThreadID: "t", Seq: 4}}})
		if err != nil {
			t.Fatal(err)
		}
		checkProviderRule(t, r.Counterfactual.Messages)
		if got, want := seqs(r.Counterfactual.Messages), "1,5,6,"; got != want {
			t.Fatalf("counterfactual seqs %s, want %s", got, want)
		}
		var removed []string
		for _, x := range r.Removed {
			removed = append(removed, fmt.Sprint(x.Seq))
		}
		if got := strings.Join(removed, ","); got != "2,3,4" {
			t.Fatalf("removed %s, want 2,3,4", got)
		}
		if r.Counterfactual.PromptHash == r.Original.PromptHash {
			t.Fatal("the counterfactual prompt has the original's hash")
		}
	})
}

func TestReplayDiverges(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		toolThread(t, e, "t")
		for _, run := range []string{"erased", "edited"} {
			if _, err := e.LoadContext(ctx, engine.LoadRequest{RunID: run, ThreadID: "t", RecentN: 6}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Replay(ctx, "nope", engine.ReplayOptions{}); !errors.Is(err, journal.ErrNotFound) {
			t.Fatalf("unknown run: %v", err)
		}
		// Change a stored text behind the engine's back, as a bug or a hand edit
		// would, once the indexes hold it (a drainer reading the edited row
		// drops its vector as stale, and the cleanup's Check reports that);
		// put it back; then erase a turn the proper way.
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		setText := func(text string) {
			t.Helper()
			if _, err := engine.ConnOf(e).ExecContext(ctx, `UPDATE messages SET content = ? WHERE thread_id = 't' AND seq = 5`, text); err != nil {
				t.Fatal(err)
			}
		}
		setText("B is cheaper (edited)")
		_, err := e.Replay(ctx, "edited", engine.ReplayOptions{})
		var de *engine.DivergenceError
		if !errors.As(err, &de) || !errors.Is(err, engine.ErrReplayDiverged) || !strings.Contains(err.Error(), "t #5 changed") {
			t.Fatalf("edited: err = %v", err)
		}
		setText("B is cheaper, A is faster")
		if _, err := e.Replay(ctx, "edited", engine.ReplayOptions{}); err != nil {
			t.Fatalf("edited back: %v", err)
		}
		ms, err := e.Messages(ctx, "t", 6, 6)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.DeleteMessages(ctx, ms[0].ID); err != nil {
			t.Fatal(err)
		}
		_, err = e.Replay(ctx, "erased", engine.ReplayOptions{})
		if !errors.Is(err, engine.ErrReplayDiverged) || !strings.Contains(err.Error(), "no longer stored") {
			t.Fatalf("erased: err = %v", err)
		}
	})
}

func TestReplayWithRecall(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		toolThread(t, e, "T-old")
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "T-cur", ResourceID: "r", Messages: []engine.Message{
			user("", "what was the ZEPHYR-QUOTE price for crate B?"),
		}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		opts := &recall.Options{TopK: 1, MessageRange: recall.Range{Before: 1, After: 1}, Scope: recall.ScopeResource}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "recall-1", ThreadID: "T-cur", Recall: opts})
		if err != nil {
			t.Fatal(err)
		}
		checkProviderRule(t, c.Messages)
		if len(c.MemCtx.Recalled) == 0 || !strings.Contains(c.Messages[0].Content, "[recalled") {
			t.Fatalf("nothing recalled: %+v", c.MemCtx)
		}
		r, err := e.Replay(ctx, "recall-1", engine.ReplayOptions{WithoutRecalled: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Original.PromptHash != c.PromptHash {
			t.Fatal("replay of a run with recall did not reproduce its prompt hash")
		}
		if got, want := len(r.Removed), len(c.MemCtx.Recalled); got != want {
			t.Fatalf("removed %d turns, want the %d recalled", got, want)
		}
		if got, want := seqs(r.Counterfactual.Messages), "1,"; got != want || r.Counterfactual.System != "" {
			t.Fatalf("counterfactual %s system %q, want only the recent turn", got, r.Counterfactual.System)
		}
		for _, x := range c.MemCtx.Recalled {
			for _, d := range c.MemCtx.Dropped {
				if x.MessageID == d.MessageID {
					t.Fatalf("%s is both recalled and dropped", x.MessageID)
				}
			}
		}
	})
}

func TestReplayWithWorkingMemory(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		now := func() time.Time { clock = clock.Add(time.Second); return clock }
		e := be.MustOpen(t, engine.Config{Now: now, WorkingMemory: &working.Config{Mode: working.ModeTemplate, Scope: working.ScopeThread, Template: "# Notes\n"}})
		toolThread(t, e, "t")
		call := func(id, memory string) {
			args, _ := json.Marshal(map[string]string{"memory": memory})
			if _, err := e.HandleToolCall(ctx, "run-x", "t", "", openai.ToolCall{ID: id, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tools.UpdateWorkingMemoryName, Arguments: string(args)}}); err != nil {
				t.Fatal(err)
			}
		}
		call("w1", "# Notes\n- prefers crate B")
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "wm-run", ThreadID: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if c.MemCtx.WorkingMemoryChars == 0 || !strings.Contains(c.System, "prefers crate B") {
			t.Fatalf("working memory not rendered: %q", c.System)
		}
		call("w2", "# Notes\n- changed her mind: crate A")
		r, err := e.Replay(ctx, "wm-run", engine.ReplayOptions{WithoutWorkingMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Original.PromptHash != c.PromptHash || !strings.Contains(r.Original.System, "prefers crate B") {
			t.Fatalf("replay did not rebuild the working memory as of the run: %q", r.Original.System)
		}
		if !r.RemovedWorkingMemory || strings.Contains(r.Counterfactual.System, "crate") || len(r.Counterfactual.Tools) != len(c.Tools) {
			t.Fatalf("counterfactual system %q, tools %d", r.Counterfactual.System, len(r.Counterfactual.Tools))
		}
	})
}

// A recall hit that cannot be paired is dropped, listed in dropped and never
// in recalled, and the run still replays to the same hash.
func TestRecalledNeverListsDroppedHit(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		// An imported tool result whose call was never stored.
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "old", ResourceID: "r", Messages: []engine.Message{
			user("", "hello"),
			{Role: "tool", ToolCallID: "lost-call", Name: "inventory", Content: "warehouse QUARTZ-77 holds 12 pallets"},
			{Role: "assistant", Content: "noted"},
		}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "cur", ResourceID: "r", Messages: []engine.Message{user("", "how many pallets in QUARTZ-77?")}}); err != nil {
			t.Fatal(err)
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		c, err := e.LoadContext(ctx, engine.LoadRequest{RunID: "drop-run", ThreadID: "cur", Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical}})
		if err != nil {
			t.Fatal(err)
		}
		checkProviderRule(t, c.Messages)
		if c.MemCtx.DroppedCount != 1 || c.MemCtx.Dropped[0].Reason != journal.ReasonOrphanToolResult || c.MemCtx.Dropped[0].Seq != 2 {
			t.Fatalf("dropped %+v", c.MemCtx.Dropped)
		}
		for _, x := range c.MemCtx.Recalled {
			if x.ThreadID == "old" && x.Seq == 2 {
				t.Fatalf("the dropped hit is listed in recalled: %+v", c.MemCtx.Recalled)
			}
		}
		r, err := e.Replay(ctx, "drop-run", engine.ReplayOptions{})
		if err != nil || r.Original.PromptHash != c.PromptHash {
			t.Fatalf("replay: %v", err)
		}
	})
}
