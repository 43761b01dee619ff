package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/internal/enginetest"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

func weatherCall(city string) engine.Message {
	return engine.Message{Role: engine.RoleAssistant, ToolCalls: []engine.ToolCall{
		{ID: "call_0", Name: "weather", Arguments: json.RawMessage(fmt.Sprintf(`{"city":%q}`, city))}}}
}

// TestPairingReusedCallID is issue 12 item 7: an agent that reuses call_0
// in a later turn must not get the later result after the earlier call (the
// old context was 1,2,6,4,5,6,7: seq 3 vanished, seq 6 came twice).
func TestPairingReusedCallID(t *testing.T) {
	enginetest.ForEachBackend(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "w", ResourceID: "r", Messages: []engine.Message{
			{Role: "user", Content: "weather in Berlin and then Paris?"},
			weatherCall("Berlin"),
			{Role: "tool", ToolCallID: "call_0", Name: "weather", Content: "Berlin: 3 °C, sleet"},
			{Role: "assistant", Content: "Berlin is cold. Checking Paris."},
			weatherCall("Paris"),
			{Role: "tool", ToolCallID: "call_0", Name: "weather", Content: "Paris: 11 °C, sunny"},
			{Role: "assistant", Content: "Paris is warmer."},
		}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			recent int
			seqs   string
		}{
			{7, "1,2,3,4,5,6,7,"},
			{5, "2,3,4,5,6,7,"}, // the window starts at the result 3: it extends back to its call
			{3, "5,6,7,"},
			{2, "5,6,7,"},
			{1, "7,"},
		} {
			t.Run(fmt.Sprintf("Recent%d", tt.recent), func(t *testing.T) {
				c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "w", RecentN: tt.recent})
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, e, c, tt.recent)
				if got := seqs(c.Messages); got != tt.seqs {
					t.Fatalf("seqs %s, want %s", got, tt.seqs)
				}
				if c.MemCtx.DroppedCount != 0 {
					t.Fatalf("dropped %+v", c.MemCtx.Dropped)
				}
			})
		}
		t.Run("Recall", func(t *testing.T) {
			if err := e.SyncIndexes(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Append(ctx, engine.AppendRequest{ThreadID: "w2", ResourceID: "r", Messages: []engine.Message{
				{Role: "user", Content: "was Berlin sleet or sunny?"}}}); err != nil {
				t.Fatal(err)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "w2", Query: "Berlin sleet",
				Recall: &recall.Options{TopK: 1, Mode: recall.ModeLexical, Scope: recall.ScopeResource}})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, e, c, 10)
			if got, want := describe(c.Messages), "w:2:assistant→call_0(repair) w:3:tool←call_0(hit) w2:1:user "; got != want {
				t.Fatalf("context %s, want %s", got, want)
			}
		})
		t.Run("SecondResultIsOrphan", func(t *testing.T) {
			// A result appended twice for one call answers it once; the second
			// answers nothing and is dropped, never sent after the call twice.
			_, err := e.Append(ctx, engine.AppendRequest{ThreadID: "w", Messages: []engine.Message{
				weatherCall("Rome"),
				{Role: "tool", ToolCallID: "call_0", Name: "weather", Content: "Rome: 15 °C"},
				{Role: "tool", ToolCallID: "call_0", Name: "weather", Content: "Rome: 15 °C (retry)"},
				{Role: "assistant", Content: "Rome is mild."},
			}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: "w", RecentN: 4})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, e, c, 4)
			if got, want := seqs(c.Messages), "8,9,11,"; got != want {
				t.Fatalf("seqs %s, want %s", got, want)
			}
			if d := c.MemCtx.Dropped; len(d) != 1 || d[0].Seq != 10 || d[0].Reason != journal.ReasonOrphanToolResult {
				t.Fatalf("dropped %+v, want seq 10 as an orphan", d)
			}
		})
	})
}

// history builds a random thread of tool-call traffic: reused ids (a pool
// of three), calls with one or two ids, results that come late (after a
// user turn), twice, for no call, or never.
func history(r *rand.Rand, n int, marker string) []engine.Message {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	text := func() string {
		return fmt.Sprintf("%s %s %s %d", marker, words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(1000))
	}
	ids := []string{"call_0", "call_1", "call_2"}
	var open []string
	var out []engine.Message
	for len(out) < n {
		switch k := r.IntN(10); {
		case k < 2:
			out = append(out, engine.Message{Role: engine.RoleUser, Content: text()})
		case k < 3:
			out = append(out, engine.Message{Role: engine.RoleAssistant, Content: text()})
		case k < 5:
			m := engine.Message{Role: engine.RoleAssistant}
			for _, i := range r.Perm(len(ids))[:1+r.IntN(2)] {
				m.ToolCalls = append(m.ToolCalls, engine.ToolCall{ID: ids[i], Name: "lookup", Arguments: json.RawMessage(fmt.Sprintf(`{"q":%q}`, text()))})
				open = append(open, ids[i])
			}
			out = append(out, m)
		default:
			id := ids[r.IntN(len(ids))] // an orphan or a second result now and then
			if len(open) > 0 && r.IntN(5) > 0 {
				j := r.IntN(len(open))
				id = open[j]
				open = append(open[:j], open[j+1:]...)
			}
			out = append(out, engine.Message{Role: engine.RoleTool, ToolCallID: id, Name: "lookup", Content: text()})
		}
	}
	return out
}

// appendHistory appends msgs to the thread in random batches and returns
// how many it stored. A batch making a call whose id an earlier call, not
// answered, makes must be refused with a *CallOpenError naming that
// message and call (the rule is followed here as a state per id: a call
// opens it, a tool message closes it); the call is then answered
// ("abandoned") and the batch appended again.
func appendHistory(t *testing.T, e *engine.Engine, r *rand.Rand, thread, resource string, msgs []engine.Message) int {
	t.Helper()
	open := map[string]bool{}
	stored := 0
	for len(msgs) > 0 {
		batch := msgs[:min(1+r.IntN(5), len(msgs))]
		_, err := e.Append(context.Background(), engine.AppendRequest{ThreadID: thread, ResourceID: resource, Messages: batch})
		i, j, reuse := reusesOpen(open, batch)
		if !reuse {
			if err != nil {
				t.Fatal(err)
			}
			stored += len(batch)
			msgs = msgs[len(batch):]
			continue
		}
		var oe *engine.CallOpenError
		if !errors.As(err, &oe) || !errors.Is(err, engine.ErrCallOpen) || oe.Index != i || oe.CallIndex != j || oe.CallID != batch[i].ToolCalls[j].ID {
			t.Fatalf("batch %s reuses open call %s at messages[%d].toolCalls[%d]: Append = %v, want a *CallOpenError naming it",
				describeMsgs(batch), batch[i].ToolCalls[j].ID, i, j, err)
		}
		answer := engine.Message{Role: engine.RoleTool, ToolCallID: oe.CallID, Name: "lookup", Content: "abandoned"}
		msgs = slices.Insert(msgs, i, answer)
	}
	return stored
}

// reusesOpen returns the first message and call of batch making a call
// whose id is open (open[id], then the batch's own calls and results); it
// records the batch in open when there is none.
func reusesOpen(open map[string]bool, batch []engine.Message) (i, j int, ok bool) {
	next := maps.Clone(open)
	for i, m := range batch {
		if m.Role == engine.RoleTool {
			next[m.ToolCallID] = false
			continue
		}
		for j, c := range m.ToolCalls {
			if next[c.ID] {
				return i, j, true
			}
			next[c.ID] = true
		}
	}
	maps.Copy(open, next)
	return 0, 0, false
}

// describeMsgs is a short form of msgs: role and call ids.
func describeMsgs(msgs []engine.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "[%s", m.Role)
		for _, c := range m.ToolCalls {
			b.WriteString(" " + c.ID)
		}
		if m.ToolCallID != "" {
			b.WriteString(" for " + m.ToolCallID)
		}
		b.WriteString("]")
	}
	return b.String()
}

// TestPairingProperty checks INV-PAIR, INV-UNIQ and INV-MEMCTX on random
// tool-call histories with reused ids, orphans and interleavings, through
// the recent window at every size and through recall from a sibling thread.
func TestPairingProperty(t *testing.T) {
	enginetest.ForEachBackendParallel(t, func(t *testing.T, be enginetest.Backend) {
		ctx := context.Background()
		e := be.MustOpen(t, engine.Config{})
		histories := 40
		if be.Name == enginetest.Postgres.Name {
			histories = 12 // each LoadContext is several round trips to the server: 32 s for 40
		}
		lens := map[string]int{}
		for h := range histories {
			r := rand.New(rand.NewPCG(uint64(h), 12))
			thread := fmt.Sprintf("h%d", h)
			stored := appendHistory(t, e, r, thread, fmt.Sprintf("res%d", h%4), history(r, 4+r.IntN(24), "pairing"))
			th, err := e.GetThread(ctx, thread)
			if err != nil {
				t.Fatal(err)
			}
			if int(th.MessageCount) != stored {
				t.Fatalf("thread %s holds %d messages, want the %d appended (a refused append stores nothing)", thread, th.MessageCount, stored)
			}
			lens[thread] = stored
		}
		if err := e.SyncIndexes(ctx); err != nil {
			t.Fatal(err)
		}
		words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
		runs := 0
		for h := range histories {
			thread := fmt.Sprintf("h%d", h)
			r := rand.New(rand.NewPCG(uint64(h), 99))
			for n := 1; n <= lens[thread]+1; n++ {
				c, err := e.LoadContext(ctx, engine.LoadRequest{ThreadID: thread, RecentN: n})
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, e, c, n)
				runs++
				opts := &recall.Options{TopK: 1 + r.IntN(5), MessageRange: recall.Range{Before: r.IntN(3), After: r.IntN(3)},
					Scope: []recall.Scope{recall.ScopeThread, recall.ScopeResource}[r.IntN(2)], Mode: recall.ModeLexical}
				q := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
				c, err = e.LoadContext(ctx, engine.LoadRequest{ThreadID: thread, RecentN: n, Query: q, Recall: opts})
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, e, c, n)
				runs++
				// Replay rebuilds it, and the counterfactual without recall
				// keeps tool-call groups whole.
				rp, err := e.Replay(ctx, c.RunID, engine.ReplayOptions{WithoutRecalled: true})
				if err != nil {
					t.Fatal(err)
				}
				checkProviderRule(t, rp.Counterfactual.Messages)
				for _, m := range rp.Counterfactual.Messages {
					if m.Reason != "" {
						t.Fatalf("counterfactual without recall holds %s seq %d (%s)", m.ThreadID, m.Seq, m.Reason)
					}
				}
			}
		}
		t.Logf("%d contexts checked over %d histories", runs, histories)
	})
}
