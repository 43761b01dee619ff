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
	var s pendingScan
	for _, t := range turns {
		s.add(t)
	}
	return s.start()
}

// pendingScan is PendingStart turn by turn: it holds the indexes that
// decide where the pending turn starts, not the turns.
type pendingScan struct {
	n int // turns seen
	// Indexes + 1 (0 when none) of the last answer (an assistant turn
	// without tool calls), of the first user turn after it (after the
	// start when there is none) and of the newest user turn.
	answer, firstUser, newestUser int
}

// add scans the next turn.
func (s *pendingScan) add(t Turn) {
	s.n++
	switch {
	case t.Role == RoleAssistant && len(t.ToolCalls) == 0:
		s.answer, s.firstUser = s.n, 0
	case t.Role == RoleUser:
		if s.firstUser == 0 {
			s.firstUser = s.n
		}
		s.newestUser = s.n
	}
}

// start is PendingStart of the turns scanned.
func (s *pendingScan) start() int {
	if s.answer > 0 {
		if s.firstUser == 0 {
			return s.n
		}
		return max(s.firstUser-1, s.n-MaxPendingTurns)
	}
	if s.newestUser == 0 {
		return s.n
	}
	return max(s.newestUser-1, s.n-MaxPendingTurns)
}

// then is the scan of s's turns followed by u's.
func (s pendingScan) then(u pendingScan) pendingScan {
	shift := func(i int) int {
		if i == 0 {
			return 0
		}
		return i + s.n
	}
	r := s
	r.n += u.n
	switch {
	case u.answer > 0:
		r.answer, r.firstUser = shift(u.answer), shift(u.firstUser)
	case r.firstUser == 0:
		r.firstUser = shift(u.firstUser)
	}
	if u.newestUser > 0 {
		r.newestUser = shift(u.newestUser)
	}
	return r
}

// pendingStart is PendingStart for the turns scanned into s, which end a
// thread but may not start it (the turns after the watermark, or after a
// range's start; the first has seq first): when they hold no answer, the
// turns before them decide where the pending turn starts, up to
// MaxPendingTurns back. The result indexes the scanned turns (0 when the
// pending turn starts before them).
func (o *Observer) pendingStart(ctx context.Context, threadID string, first int64, s pendingScan) (int, error) {
	if s.n == 0 || first <= 1 || s.answer > 0 {
		return s.start(), nil
	}
	before, err := o.cfg.Source.Messages(ctx, threadID, max(1, first-MaxPendingTurns), first-1)
	if err != nil {
		return 0, fmt.Errorf("observe: read %s: %w", threadID, err)
	}
	var b pendingScan
	for _, t := range before {
		b.add(t)
	}
	all := b.then(s)
	return max(all.start()-len(before), 0), nil
}
