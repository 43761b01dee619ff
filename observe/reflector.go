package observe

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/tokens"
	"github.com/mnemo-go/mnemo/journal"
)

// reflectorKey is the memo key of one reflector call. Besides the range it
// carries a digest of the source ids, so two different sets of observations
// over one range (possible after erasure) never share an answer.
func reflectorKey(threadID string, from, to int64, model string, sources []string) string {
	h := sha256.Sum256([]byte(strings.Join(sources, ",")))
	return fmt.Sprintf("%sreflector|%d|%d|%s|%s|%s", MemoPrefix(threadID), from, to,
		ReflectorPromptVersion, model, hex.EncodeToString(h[:8]))
}

// Reflect runs the reflector on threadID when its live observations reach
// ReflectThreshold tokens (or, with force, whenever it has two or more). It
// returns the stored reflection, or nil when none was due. On any failure the
// sources stay live and nothing is stored. Waiting for another call on
// the thread honours ctx.
func (o *Observer) Reflect(ctx context.Context, threadID string, force bool) (*Observation, error) {
	unlock, err := o.lock(ctx, threadID, Options{})
	if err != nil {
		return nil, err
	}
	defer unlock()
	return o.reflect(ctx, threadID, force)
}

// reflect is Reflect under the thread's lock. Without force it decides
// as ReflectDue does, by its count in SQL of the stored rows (a back-off
// logged when it began, by warnFailed, says no), and reads the
// observations only when due: it counted the rows List gives, which read
// pre-obs60 list debris shorter than stored, so the two disagreed on
// such a thread (ReflectDue due, Reflect not, at each walk: obs64), and it
// read every live observation of the thread at each Observe to decide.
// Its stages: the input (reflectInputOf), the memoized call
// (reflectStep), the reflection built from the answer and stored.
func (o *Observer) reflect(ctx context.Context, threadID string, force bool) (*Observation, error) {
	if !force {
		due, err := o.ReflectDue(ctx, threadID)
		if err != nil || !due {
			return nil, err
		}
	}
	in, err := o.reflectInputOf(ctx, threadID)
	if err != nil || in == nil {
		return nil, err
	}
	out, err := o.reflectStep(ctx, in)
	if err != nil {
		return nil, err
	}
	r, err := in.reflection(out)
	if err != nil {
		return nil, err
	}
	if err := o.storeReflection(ctx, r); err != nil {
		return nil, err
	}
	o.warnUncondensed(ctx, r, in.tokens)
	return r, nil
}

// reflectInput is what one reflector call condenses: the live
// observations of a thread over from..to, by FromSeq then id (byID: the
// same by id; ids: their ids in that order), holding tokens, and the memo
// key of the call over them.
type reflectInput struct {
	threadID string
	live     []Observation
	byID     map[string]*Observation
	ids      []string
	from, to int64
	tokens   int
	key      string
}

// reflectInputOf reads threadID's live observations into a
// reflectInput; nil when there are fewer than minReflected.
func (o *Observer) reflectInputOf(ctx context.Context, threadID string) (*reflectInput, error) {
	live, err := List(ctx, o.cfg.DB, Filter{ThreadID: threadID})
	if err != nil || len(live) < minReflected {
		return nil, err
	}
	slices.SortFunc(live, func(a, b Observation) int {
		return cmp.Or(cmp.Compare(a.FromSeq, b.FromSeq), strings.Compare(a.ID, b.ID))
	})
	in := &reflectInput{threadID: threadID, live: live, byID: make(map[string]*Observation, len(live)),
		ids: make([]string, len(live)), from: live[0].FromSeq, to: live[0].ToSeq}
	for i := range live {
		in.ids[i] = live[i].ID
		in.byID[live[i].ID] = &live[i]
		in.from, in.to = min(in.from, live[i].FromSeq), max(in.to, live[i].ToSeq)
		in.tokens += tokens.Text(live[i].Content)
	}
	in.key = reflectorKey(threadID, in.from, in.to, o.cfg.Model.ID(), in.ids)
	return in, nil
}

// reflectStep runs the memoized reflector call over in and returns the
// recorded answer: a failure is logged and may back the thread's
// reflector off (warnFailed), a success (a model answer or the memo's)
// ends its back-off.
func (o *Observer) reflectStep(ctx context.Context, in *reflectInput) ([]byte, error) {
	out, err := o.cfg.Journal.Step(ctx, journal.ScopeMemo, in.key, func(ctx context.Context) ([]byte, error) {
		b, err := o.reflectAnswer(ctx, in.threadID, in.from, in.to, in.live, in.byID)
		if err == nil {
			err = o.writable()
		}
		return b, err
	})
	if err != nil {
		// A call its context cancelled (an erasure of the thread, Close, a
		// caller giving up) did not fail: whoever cancelled it says why
		// (the engine logs an erasure's at INFO).
		if !errors.Is(ctx.Err(), context.Canceled) {
			o.warnFailed(ctx, callReflector, in.threadID, in.from, in.to, err)
		}
		return nil, fmt.Errorf("reflect %s %d..%d: %w", in.threadID, in.from, in.to, err)
	}
	o.backoff.succeeded(callReflector, in.threadID, in.from, in.to)
	return out, nil
}

// reflection is the reflection of in that the recorded answer out
// holds, not yet stored. Trust follows the sources: a reflection built on
// an untrusted observation is untrusted, all of it.
func (in *reflectInput) reflection(out []byte) (*Observation, error) {
	var ans Answer
	if err := json.Unmarshal(out, &ans); err != nil {
		return nil, fmt.Errorf("reflect %s %d..%d: recorded answer: %w", in.threadID, in.from, in.to, err)
	}
	untrusted := untrustedSources(in.live)
	markAll(ans.Items, untrusted)
	r := &Observation{
		ThreadID: in.threadID, ResourceID: in.live[0].ResourceID,
		FromSeq: in.from, ToSeq: in.to, Level: LevelReflection,
		Content: renderItems(ans.Items), Sources: in.ids, MemoKey: in.key, Untrusted: untrusted,
	}
	for _, l := range in.live {
		r.FromTime, r.ToTime = widen(r.FromTime, r.ToTime, l.FromTime, l.ToTime)
	}
	return r, nil
}

// warnUncondensed logs, once per reflection stored, a reflection r of
// observations holding in tokens that leaves too little room below
// ReflectThreshold for reflectDue's threshold alone to decide: the
// reflector did not condense, and runs again only after reflectGrowth
// tokens of new observations.
func (o *Observer) warnUncondensed(ctx context.Context, r *Observation, in int) {
	out, growth := tokens.Text(r.Content), reflectGrowth(o.cfg.ReflectThreshold)
	if out+growth <= o.cfg.ReflectThreshold {
		return
	}
	o.cfg.Logger.WarnContext(ctx, "reflector did not condense the observations well below reflectThreshold; it runs again only once new observations hold growthTokens, not at every observation (a model that condenses, or a higher observe.reflectThreshold, avoids this)",
		"thread", r.ThreadID, "fromSeq", r.FromSeq, "toSeq", r.ToSeq, "tokensIn", in, "tokensOut", out,
		"reflectThreshold", o.cfg.ReflectThreshold, "growthTokens", growth)
}

// reflectAnswer calls the reflector on live (byID: the same by id), the
// observations of threadID over from..to, and returns the answer as the
// journal records it: parsed, grounded, redacted and split (Answer). An
// answer with no item, or whose every item restated the instructions, is
// ErrEmptyAnswer.
func (o *Observer) reflectAnswer(ctx context.Context, threadID string, from, to int64, live []Observation, byID map[string]*Observation) ([]byte, error) {
	raw, err := o.complete(ctx, reflectorSystem, reflectorUser(live))
	if err != nil {
		return nil, err
	}
	items, err := parseAnswer(raw, "reflection")
	if err != nil {
		return nil, err
	}
	if len(items) == 0 { // an empty reflection never retires anything
		return nil, fmt.Errorf("%w: an empty reflection", ErrEmptyAnswer)
	}
	markReflected(items, byID)
	given := len(items)
	items, echoes := groundReflected(items, byID)
	if len(echoes) > 0 {
		o.cfg.Logger.WarnContext(ctx, "reflector items restating its instructions dropped",
			"thread", threadID, "dropped", len(echoes), "items", given, "why", echoSummary(echoes, "reflector", "observations"))
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%w: every item of the reflector's answer (%d) restated its instructions rather than the observations: %s. %s; nothing stored, the observations stay live and are reflected again at the next call",
			ErrEmptyAnswer, given, echoSummary(echoes, "reflector", "observations"), groundingRule("observations"))
	}
	d := Dropped{Echoes: len(echoes)}
	items, split := o.finishItems(ctx, items, &d, "reflector", "thread", threadID, "fromSeq", from, "toSeq", to)
	return json.Marshal(Answer{Version: ReflectorPromptVersion, Items: items, Dropped: d, Split: split})
}

// markReflected keeps only cited ids that are sources, and marks every item
// untrusted when any source is: a reflection condenses all its sources, and
// its citations are the model's word, not proof.
func markReflected(items []Item, byID map[string]*Observation) {
	untrusted := false
	for _, o := range byID {
		untrusted = untrusted || o.Untrusted
	}
	for i := range items {
		it := &items[i]
		it.Seqs = nil
		it.Sources = slices.DeleteFunc(it.Sources, func(id string) bool { _, ok := byID[id]; return !ok })
		slices.Sort(it.Sources)
		it.Sources = slices.Compact(it.Sources)
		if len(it.Sources) == 0 {
			it.Sources = nil
		}
		it.Untrusted = untrusted
	}
}

// untrustedSources reports whether any source observation is untrusted.
func untrustedSources(obs []Observation) bool {
	for _, o := range obs {
		if o.Untrusted {
			return true
		}
	}
	return false
}

// storeReflection inserts r and retires its sources in one transaction. When
// a reflection over exactly these sources exists, r becomes that row. When a
// source is no longer live, nothing changes and ErrSourcesChanged is
// returned.
func (o *Observer) storeReflection(ctx context.Context, r *Observation) error {
	btx, err := store.Begin(ctx, o.cfg.DB, nil)
	if err != nil {
		return fmt.Errorf("observe: store reflection: %w", err)
	}
	defer btx.Rollback()
	tx := store.Bound(btx)
	if err := lockThread(ctx, tx, r.ThreadID); err != nil {
		return err
	}
	if err := o.writable(); err != nil {
		return err
	}
	sources, _ := json.Marshal(r.Sources)
	existing, err := query(ctx, tx, `SELECT `+obsColumns+` FROM observations
		WHERE thread_id = ? AND level = ? AND sources = ? AND invalidated_at IS NULL LIMIT 1`,
		r.ThreadID, LevelReflection, string(sources))
	if err != nil {
		return err
	}
	if len(existing) > 0 {
		key := r.MemoKey
		*r = existing[0]
		r.MemoKey = key
		return nil
	}
	now := o.cfg.Now().UTC().Truncate(1e6)
	for _, id := range r.Sources {
		res, err := tx.ExecContext(ctx, `UPDATE observations SET retired_at = ?
			WHERE id = ? AND retired_at IS NULL AND invalidated_at IS NULL`, now.UnixMilli(), id)
		if err != nil {
			return fmt.Errorf("observe: retire %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("%w: %s is no longer live", ErrSourcesChanged, id)
		}
	}
	r.ID = ulid.Make().String()
	r.CreatedAt = now
	if err := insert(ctx, tx, r); err != nil {
		return err
	}
	if err := commit(ctx, btx); err != nil {
		return fmt.Errorf("observe: store reflection: %w", err)
	}
	return nil
}
