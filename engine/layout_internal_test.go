package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"
)

// TestLayoutPinned compares layout with its version before issue 14's
// allocation work (layoutBefore, kept here verbatim) on random turn sets:
// recalled and recent turns of three threads, assistant calls (reused call
// ids, several calls a message) with results next to them, far from them,
// in the other part of the prompt, or missing, and turns of no tool at all.
// layout now returns its input when nothing moves; the turns must be the
// same, in the same order.
func TestLayoutPinned(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 4))
	same := 0
	for n := range 3000 {
		turns := randomTurns(rng, n%40)
		want := layoutBefore(append([]turn(nil), turns...), "t1")
		in := append([]turn(nil), turns...)
		got := layout(in, "t1")
		// An empty input may come back as it came (nil): no caller tells.
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("case %d: layout = %v\nbefore it was %v", n, keys(got), keys(want))
		}
		if len(got) > 0 && &got[0] == &in[0] {
			same++
		}
	}
	if same == 0 || same == 3000 {
		t.Errorf("%d of 3000 layouts returned their input: the cases do not cover both paths", same)
	}
}

func keys(ts []turn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fmt.Sprintf("%s/%d%s%v", t.ThreadID, t.Seq, t.Role[:1], t.Recent)
	}
	return out
}

// randomTurns is a turn set as repairPairs may leave it (mostly paired) or
// replay may read it, in random order.
func randomTurns(rng *rand.Rand, n int) []turn {
	var out []turn
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, th := range []string{"t0", "t1", "t2"} {
		for seq := int64(1); seq <= int64(n); seq++ {
			if rng.IntN(3) == 0 {
				continue
			}
			m := Message{ID: fmt.Sprintf("%s-%d", th, seq), ThreadID: th, Seq: seq, Role: RoleUser, Content: "c",
				CreatedAt: base.Add(time.Duration(rng.IntN(100)) * time.Minute)}
			switch rng.IntN(4) {
			case 0:
				m.Role = RoleAssistant
				for k := range 1 + rng.IntN(3) {
					m.ToolCalls = append(m.ToolCalls, ToolCall{ID: fmt.Sprintf("c%d", rng.IntN(3)+k), Name: "f", Arguments: json.RawMessage(`{}`)})
				}
			case 1:
				m.Role, m.ToolCallID = RoleTool, fmt.Sprintf("c%d", rng.IntN(4))
			case 2:
				m.Role = RoleAssistant
			}
			out = append(out, turn{Message: m, Recent: th == "t1" && seq > int64(n)/2 || rng.IntN(10) == 0})
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// layoutBefore is layout as it was before issue 14's allocation work.
func layoutBefore(turns []turn, currentThread string) []turn {
	firstAt := map[string]int64{}
	for _, t := range turns {
		if at, ok := firstAt[t.ThreadID]; !ok || t.CreatedAt.UnixMilli() < at {
			firstAt[t.ThreadID] = t.CreatedAt.UnixMilli()
		}
	}
	sorted := turns
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Recent != b.Recent {
			return !a.Recent
		}
		if a.ThreadID != b.ThreadID {
			if (a.ThreadID == currentThread) != (b.ThreadID == currentThread) {
				return b.ThreadID == currentThread
			}
			if firstAt[a.ThreadID] != firstAt[b.ThreadID] {
				return firstAt[a.ThreadID] < firstAt[b.ThreadID]
			}
			return a.ThreadID < b.ThreadID
		}
		return a.Seq < b.Seq
	})
	callOf := pairInSet(sorted)
	results := map[turnKey]map[string]turn{} // call -> call id -> its result
	for _, t := range sorted {
		if c, ok := callOf[turnKey{t.ThreadID, t.Seq}]; ok {
			if results[c] == nil {
				results[c] = map[string]turn{}
			}
			results[c][t.ToolCallID] = t
		}
	}
	out := make([]turn, 0, len(sorted))
	for _, t := range sorted {
		if t.Role == RoleTool {
			continue // emitted after its call; repairPairs left no orphan
		}
		out = append(out, t)
		for _, tc := range t.ToolCalls {
			if r, ok := results[turnKey{t.ThreadID, t.Seq}][tc.ID]; ok {
				out = append(out, r)
			}
		}
	}
	return out
}
