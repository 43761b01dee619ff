package observe

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// SkipContentRefused is the reason of a Skip whose turns the model
// endpoint refused for their content (ErrContentRefused) when sent alone.
const SkipContentRefused = "content refused"

// Skip is a range of a thread's turns the observer passed over without
// observing it: the endpoint refused their content (Reason
// SkipContentRefused) when they were sent alone (one message, or one
// tool-call group). The range is stored as an observation with empty
// Content, which moves the watermark past it, and recorded in the
// journal under its own memo key
//
//	observe|<thread>|skipped|<fromSeq>|<toSeq>
//
// never under the observer's key of the range, so ObserveRange over it
// still asks the model; an answer over its range, or over a range that
// contains it, replaces it (its row invalidated, its record deleted).
// The record holds the seqs, the reason, the time and the model, never
// the turns' text nor the endpoint's message (which may quote them). An
// erasure in the thread at or before its last seq forgets it with the
// thread's other memo entries (Invalidate), and the turns left are
// observed again; one after it keeps it.
// An observer under another model than the skip's (Model) sends its
// turns again, once (retrySkips): an answer replaces the skip.
type Skip struct {
	// ThreadID is the thread whose turns were skipped.
	ThreadID string `json:"threadId"`
	// FromSeq and ToSeq bound the skipped turns (inclusive).
	FromSeq int64 `json:"fromSeq"`
	// ToSeq is the last seq skipped.
	ToSeq int64 `json:"toSeq"`
	// Reason is SkipContentRefused.
	Reason string `json:"reason"`
	// Model is the model whose endpoint refused the turns (Model.ID, as
	// observe.model names it); empty for a skip recorded before it was
	// kept. An observer under another model sends the turns again, once.
	Model string `json:"model,omitempty"`
	// At is when the skip was recorded (Config.Now, UTC).
	At time.Time `json:"at"`
}

// skipRecord is the journal record of a Skip: the JSON of its reason and
// time; the seqs are in the key.
type skipRecord struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	Model  string    `json:"model,omitempty"`
}

// skipKey is the memo key of threadID's skip of from..to.
func skipKey(threadID string, from, to int64) string {
	return fmt.Sprintf("%sskipped|%d|%d", MemoPrefix(threadID), from, to)
}

// skipTurns records that turns (one message or one tool-call group) were
// refused for their content (err: ErrContentRefused) and stores their
// range as an observation with empty Content, so the thread is observed
// past them and their text is not sent again. It logs the skip at WARN
// and returns the Skip. The caller holds the thread's lock.
func (o *Observer) skipTurns(ctx context.Context, turns []Turn, err error) (*Skip, error) {
	first, last := turns[0], turns[len(turns)-1]
	key := skipKey(first.ThreadID, first.Seq, last.Seq)
	out, serr := o.cfg.Journal.Step(ctx, journal.ScopeMemo, key, func(context.Context) ([]byte, error) {
		if err := o.writable(); err != nil {
			return nil, err
		}
		return json.Marshal(skipRecord{Reason: SkipContentRefused, At: o.cfg.Now().UTC().Truncate(time.Millisecond), Model: o.cfg.Model.ID()})
	})
	if serr != nil {
		return nil, fmt.Errorf("observe %s %d..%d: record skip: %w", first.ThreadID, first.Seq, last.Seq, serr)
	}
	sk, serr := skipOf(key, out)
	if serr != nil {
		return nil, serr
	}
	obs := &Observation{
		ThreadID: first.ThreadID, ResourceID: first.ResourceID,
		FromSeq: first.Seq, ToSeq: last.Seq, Level: LevelObservation,
		MemoKey: key, Untrusted: untrustedTurns(turns),
	}
	obs.FromTime, obs.ToTime = turnSpan(turns)
	if serr := o.storeObservation(ctx, obs, turns); serr != nil {
		return nil, serr
	}
	o.backoff.succeeded(callObserver, first.ThreadID, first.Seq, last.Seq)
	o.refused.skipped(first.ThreadID, first.Seq, last.Seq)
	o.cfg.Logger.WarnContext(ctx, "the model endpoint refused the content of these turns sent alone; the observer skips them (recorded in the journal, seqs and reason only: Skips, mnemo observe, the inspector's thread page) and observes the thread past them; they stay in the thread and its recall, never in an observation",
		"thread", first.ThreadID, "fromSeq", first.Seq, "toSeq", last.Seq, "err", err)
	return sk, nil
}

// skipOf is the Skip recorded under key with output out.
func skipOf(key string, out []byte) (*Skip, error) {
	rest, ok := strings.CutPrefix(key, "observe|")
	parts := strings.Split(rest, "|")
	if !ok || len(parts) != 4 || parts[1] != "skipped" {
		return nil, fmt.Errorf("observe: skip record %q: not a skip key", key)
	}
	from, ferr := strconv.ParseInt(parts[2], 10, 64)
	to, terr := strconv.ParseInt(parts[3], 10, 64)
	var rec skipRecord
	if err := errors.Join(ferr, terr, json.Unmarshal(out, &rec)); err != nil {
		return nil, fmt.Errorf("observe: skip record %q: %w", key, err)
	}
	return &Skip{ThreadID: parts[0], FromSeq: from, ToSeq: to, Reason: rec.Reason, At: rec.At, Model: rec.Model}, nil
}

// Skips lists the ranges of threadID the observer skipped (Skip), oldest
// range first; empty when none. db is SQLite or Postgres with mnemo's
// schema. An erasure in the thread forgets those from its seq on (their
// turns are observed again). Errors: the database's, and a record not of a skip's shape.
//
// For mnemo's own packages: engine.Engine.ObserveSkips is the library's
// way.
func Skips(ctx context.Context, db *sql.DB, threadID string) ([]Skip, error) {
	lo := MemoPrefix(threadID) + "skipped|"
	memos, err := journal.Memos(ctx, store.Bound(db), lo, lo[:len(lo)-1]+"}")
	if err != nil {
		return nil, fmt.Errorf("observe: skips of %s: %w", threadID, err)
	}
	out := make([]Skip, 0, len(memos))
	for _, m := range memos {
		sk, err := skipOf(m.Key, m.Output)
		if err != nil {
			return nil, err
		}
		out = append(out, *sk)
	}
	slices.SortFunc(out, func(a, b Skip) int { return cmp.Compare(a.FromSeq, b.FromSeq) })
	return out, nil
}

// refusedChunk handles Observe's chunk turns whose content the endpoint
// refused (err: ErrContentRefused), as cutChunk does a chunk over the
// model's context, but for this call only: while turns hold more than
// one tool-call group it returns half their tokens (at least 1), the
// bound on the chunks that follow until the refused turns are isolated
// (the first half goes at once; the half the refusal was in is halved
// again). Turns that cannot be cut (one message, or one tool-call group)
// are skipped (skipTurns) when the endpoint answers a short harmless
// probe (probeContent): it returns their Skip, or the skip's error, or,
// the probe failing, the probe's error (nothing skipped).
// Before, the chunk backed the thread's observer off and was sent again
// every 8 minutes for ever, the thread never observed past it (obs67).
func (o *Observer) refusedChunk(ctx context.Context, turns []Turn, err error) (int, *Skip, error) {
	if half := max(turnTokens(turns)/2, 1); chunkEnd(turns, len(turns), half) < len(turns) {
		return half, nil, nil
	}
	if perr := o.probeContent(ctx, turns[0], turns[len(turns)-1], err); perr != nil {
		return 0, nil, perr
	}
	sk, err := o.skipTurns(ctx, turns, err)
	return 0, sk, err
}
