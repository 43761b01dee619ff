package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/mnemo-go/mnemo/journal"
)

// turn is a message on its way into a Context: from the recent window, or
// recalled (Reason hit, range or repair), with its recall scores.
type turn struct {
	Message
	Recent                 bool
	Reason                 string   // journal.ReasonHit, ReasonRange, ReasonRepair; "" for the recent window
	Score, Lexical, Vector *float64 // set on recall hits
}

// dropped is a turn left out of the prompt, with the reason.
type dropped struct {
	turn
	why string
}

// repairPairs enforces the provider's tool-call rule on a set of turns
// (DESIGN.md, read path step 3): an assistant message with tool calls goes in
// only with all of its results, a tool result only with its call. A missing
// partner is pulled in from the store when it exists (reason "repair"; in the
// recent window the window extends back to the call); otherwise the message is
// dropped with reason "unpaired-tool-call" or "orphan-tool-result", and the
// rest of its group goes with it.
//
// Rule chosen for the recent window's lower edge: extend back to the call.
// A window that would start with a tool result pulls in its assistant call
// (and so the call's other results), since dropping a result the model asked
// for loses more than the few tokens of the call. The extension is bounded by
// one tool-call group.
func (e *Engine) repairPairs(ctx context.Context, in []turn) ([]turn, []dropped, error) {
	type key = turnKey
	set := map[key]*turn{}
	order := []key{}
	add := func(t turn) {
		k := key{t.ThreadID, t.Seq}
		if old, ok := set[k]; ok {
			if t.Recent && !old.Recent { // the recent window wins over recall
				old.Recent, old.Reason = true, ""
			}
			return
		}
		set[k] = &t
		order = append(order, k)
	}
	for _, t := range in {
		add(t)
	}
	var out []dropped
	banned := map[string]bool{} // message ids that cannot be paired
	drop := func(k key, why string) {
		t := set[k]
		banned[t.ID] = true
		out = append(out, dropped{turn: *t, why: why})
		delete(set, k)
	}
	for changed := true; changed; {
		changed = false
		for _, k := range order {
			t, ok := set[k]
			if !ok {
				continue
			}
			switch {
			case t.Role == RoleAssistant && len(t.ToolCalls) > 0:
				for _, tc := range t.ToolCalls {
					if hasResult(set, t.ThreadID, tc.ID) {
						continue
					}
					res, err := e.findToolResult(ctx, t.ThreadID, tc.ID, t.Seq)
					if err != nil {
						return nil, nil, err
					}
					if res == nil || banned[res.ID] {
						drop(k, journal.ReasonUnpairedToolCall)
						changed = true
						break
					}
					add(turn{Message: *res, Recent: t.Recent, Reason: repairReason(t.Recent)})
					changed = true
				}
			case t.Role == RoleTool:
				if c := callOf(set, t.ThreadID, t.ToolCallID); c != nil {
					continue
				}
				call, err := e.findToolCall(ctx, t.ThreadID, t.ToolCallID, t.Seq)
				if err != nil {
					return nil, nil, err
				}
				if call == nil || banned[call.ID] {
					drop(k, journal.ReasonOrphanToolResult)
					changed = true
					continue
				}
				add(turn{Message: *call, Recent: t.Recent, Reason: repairReason(t.Recent)})
				changed = true
			}
		}
	}
	kept := make([]turn, 0, len(set))
	for _, k := range order {
		if t, ok := set[k]; ok {
			kept = append(kept, *t)
		}
	}
	return kept, out, nil
}

func repairReason(recent bool) string {
	if recent {
		return ""
	}
	return journal.ReasonRepair
}

// turnKey identifies a turn by thread and seq.
type turnKey struct {
	thread string
	seq    int64
}

func hasResult(set map[turnKey]*turn, thread, callID string) bool {
	for k, t := range set {
		if k.thread == thread && t.Role == RoleTool && t.ToolCallID == callID {
			return true
		}
	}
	return false
}

func callOf(set map[turnKey]*turn, thread, callID string) *turn {
	for k, t := range set {
		if k.thread != thread || t.Role != RoleAssistant {
			continue
		}
		for _, tc := range t.ToolCalls {
			if tc.ID == callID {
				return t
			}
		}
	}
	return nil
}

// findToolResult returns the first tool result for callID after seq in the
// thread, or nil.
func (e *Engine) findToolResult(ctx context.Context, thread, callID string, after int64) (*Message, error) {
	m, err := scanMessage(e.cachedQueryRow(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE thread_id = ? AND tool_call_id = ? AND role = 'tool' AND seq > ? ORDER BY seq LIMIT 1`, thread, callID, after))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("engine: find result of tool call %s: %w", callID, err)
	}
	return &m, nil
}

// findToolCall returns the latest assistant message before seq in the thread
// that made the call callID, or nil.
func (e *Engine) findToolCall(ctx context.Context, thread, callID string, before int64) (*Message, error) {
	m, err := scanMessage(e.cachedQueryRow(ctx, `SELECT `+messageColumns+` FROM messages
		WHERE thread_id = ? AND role = 'assistant' AND seq < ? AND tool_calls IS NOT NULL
		AND EXISTS (SELECT 1 FROM json_each(messages.tool_calls) j WHERE json_extract(j.value, '$.id') = ?)
		ORDER BY seq DESC LIMIT 1`, thread, before, callID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("engine: find tool call %s: %w", callID, err)
	}
	return &m, nil
}

// layout orders turns for the prompt: recalled turns first, grouped by thread
// (threads in order of their first turn's time, the current thread last) and
// by seq within a thread, then the recent window in seq order. Tool results
// are then moved to immediately follow their call, in call order, so that
// every assistant tool-call message is followed by exactly its results.
func layout(turns []turn, currentThread string) []turn {
	firstAt := map[string]int64{}
	for _, t := range turns {
		if at, ok := firstAt[t.ThreadID]; !ok || t.CreatedAt.UnixMilli() < at {
			firstAt[t.ThreadID] = t.CreatedAt.UnixMilli()
		}
	}
	sorted := append([]turn(nil), turns...)
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
	results := map[string]turn{} // thread + "\x00" + call id -> result
	for _, t := range sorted {
		if t.Role == RoleTool {
			results[t.ThreadID+"\x00"+t.ToolCallID] = t
		}
	}
	out := make([]turn, 0, len(sorted))
	for _, t := range sorted {
		if t.Role == RoleTool {
			continue // emitted after its call
		}
		out = append(out, t)
		for _, tc := range t.ToolCalls {
			if r, ok := results[t.ThreadID+"\x00"+tc.ID]; ok {
				out = append(out, r)
			}
		}
	}
	return out
}
