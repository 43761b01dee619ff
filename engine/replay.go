package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/render"
	"github.com/mnemo-go/mnemo/journal"
)

// ErrReplayDiverged is returned (inside a *DivergenceError) by Replay when
// the store can no longer produce the run's prompt: a referenced message was
// erased or changed, an observation was invalidated, or the prompt hash does
// not match. Replay never invents or silently skips content.
var ErrReplayDiverged = errors.New("engine: replay diverged from the recorded run")

// DivergenceError lists what differs between a run's record and what the
// store holds now. It wraps ErrReplayDiverged, and ErrWorkingMemoryErased
// when the run's working-memory version was erased.
type DivergenceError struct {
	// RunID is the run replayed.
	RunID string
	// Differences are sentences, one per change found.
	Differences []string
	// causes are the sentinels it wraps beside ErrReplayDiverged.
	causes []error
}

// Error implements error.
func (e *DivergenceError) Error() string {
	const show = 10
	d := e.Differences
	more := ""
	if len(d) > show {
		d, more = d[:show], fmt.Sprintf("; and %d more", len(d)-show)
	}
	return fmt.Sprintf("engine: replay of run %s diverged: %s%s", e.RunID, strings.Join(d, "; "), more)
}

// Unwrap returns ErrReplayDiverged, and ErrWorkingMemoryErased when the
// run's working-memory version was erased.
func (e *DivergenceError) Unwrap() []error { return append([]error{ErrReplayDiverged}, e.causes...) }

// TurnRef names a stored turn by thread and seq.
type TurnRef struct {
	// ThreadID is the turn's thread.
	ThreadID string `json:"threadId"`
	// Seq is the turn's seq in ThreadID.
	Seq int64 `json:"seq"`
}

// ReplayOptions choose what a counterfactual replay leaves out. The zero
// value removes nothing: the replay must then reproduce the run's prompt hash.
type ReplayOptions struct {
	// WithoutRecalled removes every recalled turn (hits, range neighbours and
	// repairs).
	WithoutRecalled bool
	// WithoutTurns removes chosen turns, recalled or recent. Removing a turn
	// of a tool-call group removes the whole group, so the counterfactual
	// prompt stays valid for the provider.
	WithoutTurns []TurnRef
	// WithoutObservations removes every observation and reflection;
	// WithoutObservationIDs removes chosen ones.
	WithoutObservations bool
	// WithoutObservationIDs removes the observations of these ids (observe.Observation.ID).
	WithoutObservationIDs []string
	// WithoutWorkingMemory removes the working memory from the system part
	// (its tool definitions stay: the model could still update it).
	WithoutWorkingMemory bool
}

// Replay is the result of Engine.Replay.
type Replay struct {
	// RunID is the run replayed.
	RunID string `json:"runId"`
	// Record is the run's memctx record, as journaled.
	Record *journal.MemCtx `json:"memctx"`
	// Original is the run's context rebuilt from its record and the store;
	// its PromptHash equals the record's.
	Original *Context `json:"original"`
	// Counterfactual is Original without the removed parts, with its own
	// PromptHash. Without removals it equals Original.
	Counterfactual *Context `json:"counterfactual"`
	// Removed lists the turns left out of Counterfactual (a removed turn's
	// tool-call partners included), RemovedObservations the observations,
	// and RemovedWorkingMemory whether working memory was left out.
	Removed []journal.Ref `json:"removed"`
	// RemovedObservations are the observations left out of Counterfactual.
	RemovedObservations []journal.ObservationRef `json:"removedObservations"`
	// RemovedWorkingMemory reports that working memory was left out.
	RemovedWorkingMemory bool `json:"removedWorkingMemory"`
}

// Replay rebuilds the context of a past run from its memctx record and the
// store, in the same order and rendering, and a counterfactual context
// without the parts opt names (DESIGN.md, "Journal, memoization and replay").
//
// The run's turns are read within Config.Limits.MaxAnswerBytes, as
// LoadContext reads them.
//
// Errors: a *ValidationError (ErrInvalidInput) for a runID no run can
// have (ValidID, field runId) or a turn of opt.WithoutTurns no thread can
// hold (withoutTurns[i].threadId, or withoutTurns[i].seq below 1);
// journal.ErrNotFound for an unknown run; a *DivergenceError
// (errors.Is ErrReplayDiverged) listing what differs when the original
// prompt cannot be reproduced exactly, which also matches
// ErrWorkingMemoryErased when the working-memory version the run rendered
// (memctx workingMemoryVersion) was erased since (no counterfactual is
// returned then, even without working memory); a *ReplayTooLargeError (errors.Is
// ErrAnswerTooLarge) when the run's turns pass the bound (a run recorded
// before it, or under a larger one). A well-formed turn that is not in the
// run's prompt removes nothing: Replay.Removed lists what was removed.
func (e *Engine) Replay(ctx context.Context, runID string, opt ReplayOptions) (*Replay, error) {
	if err := checkReplayIDs(runID, opt); err != nil {
		return nil, err
	}
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	rec, err := e.journal.MemCtx(ctx, runID)
	if err != nil {
		return nil, err
	}
	div := &DivergenceError{RunID: runID}
	turns, err := e.replayTurns(ctx, rec, div)
	if err != nil {
		return nil, err
	}
	obs, err := e.replayObservations(ctx, rec, div)
	if err != nil {
		return nil, err
	}
	wm, tools, err := e.replayWorkingMemory(ctx, rec, div)
	if err != nil {
		return nil, err
	}
	if len(div.Differences) > 0 {
		return nil, div
	}
	loc, err := render.ParseZone(rec.TimeZone)
	if err != nil {
		div.Differences = append(div.Differences, fmt.Sprintf("the run's time zone %q is unknown here: %v", rec.TimeZone, err))
		return nil, div
	}
	markUnsettled(turns, rec.Unsettled)
	turns = withUnsettled(layout(turns, rec.ThreadID), e.unsettledText())
	orig := compose(turns, renderObservations(obs, loc), wm, tools, loc)
	if orig.PromptHash != rec.PromptHash {
		div.Differences = append(div.Differences, hashDifference(rec, orig.PromptHash))
		return nil, div
	}
	orig.RunID, orig.MemCtx = runID, rec
	out := &Replay{RunID: runID, Record: rec, Original: orig, Removed: []journal.Ref{}, RemovedObservations: []journal.ObservationRef{}}

	out.Counterfactual = counterfactual(out, turns, obs, wm, tools, loc, opt)
	return out, nil
}

// counterfactual composes the run's context without what opt names, and
// lists in out what it left out (a removed turn's tool-call partners
// included).
func counterfactual(out *Replay, turns []turn, obs []replayObservation, wm string, tools []openai.Tool, loc *time.Location, opt ReplayOptions) *Context {
	remove := map[TurnRef]bool{}
	for _, r := range opt.WithoutTurns {
		remove[r] = true
	}
	for _, t := range turns {
		if opt.WithoutRecalled && !t.Recent {
			remove[TurnRef{t.ThreadID, t.Seq}] = true
		}
	}
	removeGroups(turns, remove)
	var kept []turn
	for _, t := range turns {
		if remove[TurnRef{t.ThreadID, t.Seq}] {
			out.Removed = append(out.Removed, ref(t, t.Reason))
		} else {
			kept = append(kept, t)
		}
	}
	dropObs := map[string]bool{}
	for _, id := range opt.WithoutObservationIDs {
		dropObs[id] = true
	}
	var keptObs []replayObservation
	for _, o := range obs {
		if opt.WithoutObservations || dropObs[o.ref.ID] {
			out.RemovedObservations = append(out.RemovedObservations, o.ref)
		} else {
			keptObs = append(keptObs, o)
		}
	}
	if opt.WithoutWorkingMemory && wm != "" {
		wm, out.RemovedWorkingMemory = "", true
	}
	cf := compose(kept, renderObservations(keptObs, loc), wm, tools, loc)
	cf.RunID = out.RunID
	return cf
}

// hashDifference explains a prompt hash that replay could not reproduce: a
// run composed by another rendering (RenderVersion) cannot be reproduced by
// this one; otherwise the configuration (tools, working memory schema)
// changed.
func hashDifference(rec *journal.MemCtx, got string) string {
	if rec.Render != RenderVersion {
		was := rec.Render
		if was == "" {
			was = "render-v1"
		}
		return fmt.Sprintf("prompt hash %s, recorded %s: the run was rendered by %s and this engine renders %s, so its prompt cannot be reproduced byte for byte", got, rec.PromptHash, was, RenderVersion)
	}
	return fmt.Sprintf("prompt hash %s, recorded %s (the configuration changed since the run: tools, working memory schema or time zone)", got, rec.PromptHash)
}

// removeGroups extends remove to whole tool-call groups: removing an
// assistant call removes its results, removing a result removes its call and
// the call's other results.
func removeGroups(turns []turn, remove map[TurnRef]bool) {
	callOf := pairInSet(turns)
	for changed := true; changed; {
		changed = false
		for r, c := range callOf {
			res, call := TurnRef{r.thread, r.seq}, TurnRef{c.thread, c.seq}
			if remove[res] != remove[call] {
				remove[res], remove[call] = true, true
				changed = true
			}
		}
	}
}

// replayTurns rebuilds the recent and recalled turns of rec from the store.
func (e *Engine) replayTurns(ctx context.Context, rec *journal.MemCtx, div *DivergenceError) ([]turn, error) {
	recentRefs, err := e.recentRefs(ctx, rec)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range recentRefs {
		ids = append(ids, r.MessageID)
	}
	for _, r := range rec.Recalled {
		ids = append(ids, r.MessageID)
	}
	// Read within Limits.MaxAnswerBytes, as the run's LoadContext was, so
	// a run recorded before the bound (or under a larger one) cannot make
	// a replay read the whole of its turns; it is refused, never replayed
	// in part.
	var ms []Message
	if len(ids) > 0 {
		ms, err = messagesFromRows(e.ms.MessagesByIDWithin(ctx, rec.ResourceID, ids, e.limits.MaxAnswerBytes))
	}
	if errors.Is(err, msgstore.ErrTooLarge) {
		return nil, &ReplayTooLargeError{RunID: rec.RunID, Limit: e.limits.MaxAnswerBytes}
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	byID := make(map[string]Message, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	var turns []turn
	check := func(r journal.Ref, recent bool) {
		m, ok := byID[r.MessageID]
		switch {
		case !ok && strings.HasPrefix(r.ThreadID, TombstonePrefix):
			// A turn of a deleted thread: the record names it by
			// tombstones only.
			div.Differences = append(div.Differences, fmt.Sprintf("%s #%d (a turn of a deleted thread) is no longer stored", r.ThreadID, r.Seq))
		case !ok:
			div.Differences = append(div.Differences, fmt.Sprintf("%s #%d (%s) is no longer stored", r.ThreadID, r.Seq, r.MessageID))
		case m.ThreadID != r.ThreadID || m.Seq != r.Seq:
			div.Differences = append(div.Differences, fmt.Sprintf("%s is now %s #%d, recorded %s #%d", r.MessageID, m.ThreadID, m.Seq, r.ThreadID, r.Seq))
		case r.Preview != "" && Preview(m) != r.Preview:
			div.Differences = append(div.Differences, fmt.Sprintf("%s #%d changed since the run", r.ThreadID, r.Seq))
		default:
			t := turn{Message: m, Recent: recent}
			if !recent {
				t.Reason, t.Score, t.Lexical, t.Vector = r.Reason, r.Score, r.Lexical, r.Vector
			}
			turns = append(turns, t)
		}
	}
	for _, r := range recentRefs {
		check(r, true)
	}
	for _, r := range rec.Recalled {
		check(r, false)
	}
	return turns, nil
}

// recentRefs returns every turn of the run's recent window. The record lists
// at most journal.RecentCap of them; the window is a seq range of the thread
// that starts at the first listed turn, so the rest is found by walking the
// thread from there, skipping the turns the run dropped, until RecentCount
// turns are found. The walk's turns carry no preview to check.
func (e *Engine) recentRefs(ctx context.Context, rec *journal.MemCtx) ([]journal.Ref, error) {
	if rec.RecentCount <= len(rec.Recent) {
		return rec.Recent, nil
	}
	listed := map[string]bool{}
	start := int64(-1)
	for _, r := range rec.Recent {
		listed[r.MessageID] = true
		if start < 0 || r.Seq < start {
			start = r.Seq
		}
	}
	dropped := map[string]bool{}
	for _, d := range rec.Dropped {
		dropped[d.MessageID] = true
	}
	out := append([]journal.Ref(nil), rec.Recent...)
	err := e.ms.WalkFrom(ctx, rec.ThreadID, start, func(m msgstore.SeqRef) bool {
		if !listed[m.ID] && !dropped[m.ID] {
			out = append(out, journal.Ref{ThreadID: rec.ThreadID, Seq: m.Seq, MessageID: m.ID, Role: m.Role})
		}
		return len(out) < rec.RecentCount
	})
	if err != nil {
		return nil, fmt.Errorf("engine: replay %s: %w", rec.RunID, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// checkReplayIDs refuses a run id and turns that no run or thread can
// have, as the other reads refuse a malformed id, instead of answering
// that the run is not found or removing nothing.
func checkReplayIDs(runID string, opt ReplayOptions) error {
	if !ValidID(runID) {
		return badID(-1, "runId", runID, false)
	}
	for i, t := range opt.WithoutTurns {
		if !ValidID(t.ThreadID) {
			return badID(-1, fmt.Sprintf("withoutTurns[%d].threadId", i), t.ThreadID, false)
		}
		if t.Seq < 1 {
			return invalid(-1, fmt.Sprintf("withoutTurns[%d].seq", i), "must be a seq, 1 or more; got %d", t.Seq)
		}
	}
	return nil
}
