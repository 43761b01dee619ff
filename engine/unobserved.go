package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// This file bounds the unobserved tail of LoadContext's recent window
// (ObserveConfig.MaxUnobservedTokens): how large the window is, which
// unobserved turns it leaves out, how memctx lists them, and the warning
// that says so.

const (
	// DefaultUnobservedFactor and DefaultMaxUnobservedTokens make
	// ObserveConfig.MaxUnobservedTokens when it is 0: the factor times the
	// observer's Threshold, and at least DefaultMaxUnobservedTokens (4 x
	// observe.DefaultThreshold). The observer is due at one Threshold, so
	// a tail four times as large means it has fallen well behind.
	DefaultUnobservedFactor = 4
	// DefaultMaxUnobservedTokens is the floor of that default, in estimated tokens.
	DefaultMaxUnobservedTokens = DefaultUnobservedFactor * observe.DefaultThreshold
	// NoUnobservedBound, as ObserveConfig.MaxUnobservedTokens, keeps every
	// unobserved message in the window, however many.
	NoUnobservedBound = math.MaxInt
	// unobservedListed is the most turns left out as unobserved that a
	// memctx record lists (the newest ones, next to the window); its
	// droppedCount counts them all.
	unobservedListed = journal.RecentCap
	// unobservedWarnEvery is how often, at most, LoadContext warns that a
	// thread's unobserved tail was cut.
	unobservedWarnEvery = 10 * time.Minute
)

// checkObserveConfig refuses an ObserveConfig bound that cannot hold: a
// negative MaxUnobservedTokens, and a negative Threshold, ChunkTokens,
// ReflectThreshold, MaxRounds, MaxAnswerTokens or CallTimeout, which the
// observer read as its default (MaxRounds, MaxAnswerTokens, CallTimeout)
// or refused only at its first use with an ErrConfig naming no field (the
// thresholds); a MaxAnswerTokens above observe.MaxAnswerTokensLimit; and a
// Scope other than the two, refused there too.
func checkObserveConfig(c *ObserveConfig) error {
	if c == nil {
		return nil
	}
	if c.MaxUnobservedTokens < 0 {
		return invalid(-1, "Observe.MaxUnobservedTokens", "must not be negative (0: the default, NoUnobservedBound: no bound), got %d", c.MaxUnobservedTokens)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Threshold", c.Threshold}, {"ChunkTokens", c.ChunkTokens}, {"ReflectThreshold", c.ReflectThreshold}, {"MaxRounds", c.MaxRounds}, {"MaxAnswerTokens", c.MaxAnswerTokens}} {
		if f.v < 0 {
			return invalid(-1, "Observe."+f.name, "must be 0 (the default) or more, got %d", f.v)
		}
	}
	if c.MaxAnswerTokens > observe.MaxAnswerTokensLimit {
		return invalid(-1, "Observe.MaxAnswerTokens", "must be at most observe.MaxAnswerTokensLimit (%d), got %d", observe.MaxAnswerTokensLimit, c.MaxAnswerTokens)
	}
	if c.CallTimeout < 0 {
		return invalid(-1, "Observe.CallTimeout", "must be 0 (observe.DefaultCallTimeout, %s) or more, got %v", observe.DefaultCallTimeout, c.CallTimeout)
	}
	if c.Scope != "" && c.Scope != ObserveScopeThread && c.Scope != ObserveScopeResource {
		return invalid(-1, "Observe.Scope", "must be %q or %q", ObserveScopeThread, ObserveScopeResource)
	}
	return nil
}

// maxUnobservedTokens is the resolved ObserveConfig.MaxUnobservedTokens.
func (c *ObserveConfig) maxUnobservedTokens() int {
	if c.MaxUnobservedTokens > 0 {
		return c.MaxUnobservedTokens
	}
	th := c.Threshold
	if th <= 0 {
		th = observe.DefaultThreshold
	}
	return max(DefaultUnobservedFactor*th, DefaultMaxUnobservedTokens)
}

// unobservedCut is a window that left out unobserved turns: those of
// seq above watermark and below the window's first turn.
type unobservedCut struct {
	watermark int64
	total     int // the unobserved messages when the window was sized
}

// windowSize is the recent-window size LoadContext should use, and the cut
// when the window leaves unobserved turns out. With observational memory
// on, the window holds at least recentN messages and every message after
// the thread's observed watermark, as far as they fit in
// ObserveConfig.MaxUnobservedTokens; nothing older than the window is left
// out unless it was observed or is over that bound. With observation off,
// or in render-only mode (no model) on a thread that was never observed, it
// returns recentN: with nothing distilling the older turns, the plain
// window applies. The tail is measured by a count and a token sum in SQL,
// and, when it is over the bound, by its newest messages' token counts up
// to the bound (msgstore.NewestWithinTokens): it is never read whole.
func (e *Engine) windowSize(ctx context.Context, threadID string, recentN int) (int, *unobservedCut, error) {
	c := e.cfg.Observe
	if c == nil || recentN <= 0 {
		return recentN, nil, nil
	}
	wm, err := observe.Watermark(ctx, e.db, threadID)
	if err != nil {
		return 0, nil, err
	}
	if wm == 0 && c.Model == nil {
		return recentN, nil, nil
	}
	n, tokens, err := e.ms.CountTokensAfter(ctx, threadID, wm)
	if err != nil {
		return 0, nil, fmt.Errorf("engine: unobserved messages: %w", err)
	}
	if bound := c.maxUnobservedTokens(); n <= recentN || tokens <= bound {
		return max(recentN, n), nil, nil
	}
	fit, err := e.ms.NewestWithinTokens(ctx, threadID, wm, c.maxUnobservedTokens())
	if err != nil {
		return 0, nil, fmt.Errorf("engine: unobserved messages: %w", err)
	}
	if fit >= n {
		return n, nil, nil
	}
	return max(recentN, fit), &unobservedCut{watermark: wm, total: n}, nil
}

// leftOut lists, after the pairing stage, the unobserved turns the window
// left out (l.cut): the newest unobservedListed of them as dropped with
// reason "unobserved", the rest counted in l.unlisted. A left-out turn that
// reached the prompt anyway (recalled, or pulled in to complete a tool-call
// group at the window's edge) is not left out. They are read (for their
// previews) within what the answer's other reads left of
// Limits.MaxAnswerBytes, and spent from it: past it, the newest that fit
// are listed and the rest counted (the previews are provenance, not the
// prompt, so they never fail the call).
func (l *load) leftOut(ctx context.Context) error {
	if l.cut == nil || len(l.recent) == 0 {
		return nil
	}
	from, below := l.cut.watermark+1, l.recent[0].Seq
	if below <= from {
		return nil
	}
	total, err := l.e.ms.CountBetween(ctx, l.req.ThreadID, from, below-1)
	if err != nil {
		return fmt.Errorf("engine: unobserved messages: %w", err)
	}
	present := l.presentIn(from, below-1)
	page, err := l.unobservedPage(ctx, from, below-1, unobservedListed+len(present))
	if err != nil {
		return err
	}
	listed := 0
	for _, m := range page {
		if present[m.ID] || listed == unobservedListed {
			continue
		}
		l.drops = append(l.drops, dropped{turn: turn{Message: m}, why: journal.ReasonUnobserved})
		listed++
	}
	l.unlisted = max(total-len(present)-listed, 0)
	l.e.warnUnobservedCut(ctx, l.req.ThreadID, l.cut.total, total-len(present))
	return nil
}

// unobservedPage reads the newest limit of the thread's turns with
// fromSeq <= seq <= toSeq, as many as fit in what l.answer has left
// (none when nothing is), and spends their bytes.
func (l *load) unobservedPage(ctx context.Context, fromSeq, toSeq int64, limit int) ([]Message, error) {
	left := l.answer.left()
	if left == 0 {
		return nil, nil
	}
	rows, _, err := l.e.ms.MessagesPageUpTo(ctx, l.req.ThreadID, fromSeq, toSeq, limit, true, max(left, 0))
	size := 0
	for _, r := range rows {
		size += r.Size()
	}
	page, err := messagesFromRows(rows, err)
	if err != nil {
		return nil, fmt.Errorf("engine: unobserved messages: %w", err)
	}
	l.answer.used += size // within what was left: MessagesPageUpTo keeps no row past it
	return page, nil
}

// presentIn is the set of ids of the thread's turns with fromSeq <= seq <=
// toSeq that the prompt holds or that another stage dropped.
func (l *load) presentIn(fromSeq, toSeq int64) map[string]bool {
	out := map[string]bool{}
	in := func(t turn) {
		if t.ThreadID == l.req.ThreadID && t.Seq >= fromSeq && t.Seq <= toSeq {
			out[t.ID] = true
		}
	}
	for _, t := range l.turns {
		in(t)
	}
	for _, d := range l.drops {
		in(d.turn)
	}
	return out
}

// unobservedWarnings remembers when each thread's cut was last logged.
type unobservedWarnings struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// warnUnobservedCut logs that the window of threadID left out left of its
// unobserved messages, at most once per thread every unobservedWarnEvery.
func (e *Engine) warnUnobservedCut(ctx context.Context, threadID string, unobserved, left int) {
	w := &e.obs.warned
	now := e.now()
	w.mu.Lock()
	if at, ok := w.last[threadID]; ok && now.Sub(at) < unobservedWarnEvery {
		w.mu.Unlock()
		return
	}
	if w.last == nil || len(w.last) >= 4096 { // bounded: forgetting only repeats a warning
		w.last = map[string]time.Time{}
	}
	w.last[threadID] = now
	w.mu.Unlock()
	e.log.WarnContext(ctx, "the observer is behind: the recent window left out the oldest unobserved messages (still stored; observed later, recall may bring them back)",
		"thread", threadID, "unobserved", unobserved, "leftOut", left, "maxUnobservedTokens", e.cfg.Observe.maxUnobservedTokens())
}
