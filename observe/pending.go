package observe

import (
	"context"
	"fmt"
)

// MaxPendingTurns bounds the pending turn (PendingStart) and how far back
// its start is looked for: at most the newest MaxPendingTurns turns of a
// thread are pending.
const MaxPendingTurns = 64

// PendingStart returns the index in turns where the pending turn starts.
// turns are the newest turns of a thread in seq order: the whole thread, or
// at least its last MaxPendingTurns turns.
//
// The pending turn is the question the assistant is still working on: the
// first user turn after the last assistant answer (an assistant turn without
// tool calls) and every turn after it, the tool calls made for it so far
// included. When turns hold no answer at all (a thread that never got one,
// such as a log of notes), only the newest user turn and what follows it are
// pending. PendingStart returns len(turns) when no user turn follows the
// last answer, and never less than len(turns)-MaxPendingTurns.
//
// The pending turn is never distilled: the observer never sends it as
// observable, and LoadContext keeps it verbatim in the recent window
// whatever RecentN is, so the model reads the question as it was asked.
func PendingStart(turns []Turn) int {
	start, newestUser := len(turns), -1
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		if t.Role == RoleAssistant && len(t.ToolCalls) == 0 {
			return max(start, len(turns)-MaxPendingTurns)
		}
		if t.Role == RoleUser {
			start = i
			if newestUser < 0 {
				newestUser = i
			}
		}
	}
	if newestUser < 0 {
		return len(turns)
	}
	return max(newestUser, len(turns)-MaxPendingTurns)
}

// pendingStart is PendingStart for turns that end a thread but may not start
// it (the turns after the watermark, or after a range's start): when they
// hold no answer, the turns before them decide where the pending turn
// starts, up to MaxPendingTurns back. The result indexes turns (0 when the
// pending turn starts before them).
func (o *Observer) pendingStart(ctx context.Context, threadID string, turns []Turn) (int, error) {
	if len(turns) == 0 || turns[0].Seq <= 1 {
		return PendingStart(turns), nil
	}
	for _, t := range turns {
		if t.Role == RoleAssistant && len(t.ToolCalls) == 0 {
			return PendingStart(turns), nil
		}
	}
	first := turns[0].Seq
	before, err := o.cfg.Source.Messages(ctx, threadID, max(1, first-MaxPendingTurns), first-1)
	if err != nil {
		return 0, fmt.Errorf("observe: read %s: %w", threadID, err)
	}
	all := append(append(make([]Turn, 0, len(before)+len(turns)), before...), turns...)
	return max(PendingStart(all)-len(before), 0), nil
}
