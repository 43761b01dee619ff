package observe

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// observerKey is the memo key of one observer call.
func observerKey(threadID string, from, to int64, model string) string {
	return fmt.Sprintf("%sobserver|%d|%d|%s|%s", MemoPrefix(threadID), from, to, ObserverPromptVersion, model)
}

// observeTurns runs one memoized observer call over turns (one thread, seq
// order) and stores its observation. The caller holds the thread's lock.
// With cuttable the caller sends a smaller chunk at once when turns are
// over the model's context and can be cut (cutChunk), and cuts or skips
// a chunk whose content the endpoint refused (refusedChunk): those
// failures are then neither logged nor backed off here.
func (o *Observer) observeTurns(ctx context.Context, turns []Turn, cuttable bool) (*Observation, []byte, error) {
	first, last := turns[0], turns[len(turns)-1]
	key := observerKey(first.ThreadID, first.Seq, last.Seq, o.cfg.Model.ID())
	out, err := o.cfg.Journal.Step(ctx, journal.ScopeMemo, key, func(ctx context.Context) ([]byte, error) {
		raw, err := o.complete(ctx, observerSystem, observerUser(turns))
		if err != nil {
			return nil, err
		}
		items, err := parseAnswer(raw, "observations")
		if err != nil {
			return nil, err
		}
		items, dropped, err := o.checkObserved(ctx, items, turns)
		if err != nil {
			return nil, err
		}
		items, split := o.finishItems(ctx, items, &dropped, "observer", "thread", first.ThreadID, "fromSeq", first.Seq, "toSeq", last.Seq)
		if err := o.writable(); err != nil {
			return nil, err
		}
		return json.Marshal(Answer{Version: ObserverPromptVersion, Items: items, Dropped: dropped, Split: split})
	})
	if err != nil {
		// A call its context cancelled (an erasure of the thread, Close, a
		// caller giving up) is not retried for that: whoever cancelled it
		// says why (the engine logs an erasure's at INFO).
		switch {
		case errors.Is(ctx.Err(), context.Canceled):
		case !cuttable && kindOf(err) == failContent:
			o.warnRangeRefused(ctx, first, last, err)
		case !cuttable || !canCut(turns, err) && !errors.Is(err, ErrContentRefused):
			o.warnFailed(ctx, callObserver, first.ThreadID, first.Seq, last.Seq, err)
		}
		return nil, nil, fmt.Errorf("observe %s %d..%d: %w", first.ThreadID, first.Seq, last.Seq, err)
	}
	// A memo hit ends the thread's back-off on this chunk too (the chunk
	// is observed), not the endpoint's refusal (modelAnswered: no call).
	o.backoff.succeeded(callObserver, first.ThreadID, first.Seq, last.Seq)
	var ans Answer
	if err := json.Unmarshal(out, &ans); err != nil {
		return nil, nil, fmt.Errorf("observe %s %d..%d: recorded answer: %w", first.ThreadID, first.Seq, last.Seq, err)
	}
	// Trust follows the sources: an observation of a range that holds
	// untrusted content is untrusted, all of it.
	untrusted := untrustedTurns(turns)
	markAll(ans.Items, untrusted)
	obs := &Observation{
		ThreadID: first.ThreadID, ResourceID: first.ResourceID,
		FromSeq: first.Seq, ToSeq: last.Seq, Level: LevelObservation,
		Content: renderItems(ans.Items), MemoKey: key, Untrusted: untrusted,
	}
	obs.FromTime, obs.ToTime = turnSpan(turns)
	if err := o.storeObservation(ctx, obs, turns); err != nil {
		return nil, nil, err
	}
	return obs, out, nil
}

// warnRangeRefused logs at WARN that the endpoint refused the content of
// a range that cannot be cut, first..last (err: ErrContentRefused):
// ObserveRange's, or a skip sent again under another model (retrySkips).
// It records no back-off: ObserveRange consults none, and one on the thread's
// observer held Observe, whose chunk starting at the same seq waited 1
// to 8 minutes before it cut that chunk and skipped the refused turns
// (obs70).
func (o *Observer) warnRangeRefused(ctx context.Context, first, last Turn, err error) {
	o.cfg.Logger.WarnContext(ctx, "the model endpoint refused the content of a range that cannot be cut (an ObserveRange range, or turns skipped under another model sent again once; a content filter or moderation flagged it): the range stays as it was and no call backs off (Observe cuts such a chunk and skips the refused turns)",
		"thread", first.ThreadID, "fromSeq", first.Seq, "toSeq", last.Seq, "err", err)
}

// checkObserved checks the items of an observer answer over turns: their
// citations (checkCitations), then their words (groundObserved). It logs
// what it dropped. An answer of no items is valid (the chunk held nothing
// worth keeping); one whose every item was dropped is ErrEmptyAnswer, not
// recorded: the chunk is tried again on the next call.
func (o *Observer) checkObserved(ctx context.Context, items []Item, turns []Turn) ([]Item, Dropped, error) {
	given := len(items)
	items, d := checkCitations(items, turns)
	items, echoes := groundObserved(items, turns)
	d.Echoes = len(echoes)
	first, last := turns[0], turns[len(turns)-1]
	if d.any() {
		attrs := []any{"thread", first.ThreadID, "fromSeq", first.Seq, "toSeq", last.Seq,
			"items", given, "uncited", d.Uncited, "citations", d.Citations, "duplicates", d.Duplicates, "echoes", d.Echoes}
		if len(echoes) > 0 {
			attrs = append(attrs, "why", echoSummary(echoes, "observer", "turns"))
		}
		o.cfg.Logger.WarnContext(ctx, "observer answer items dropped", attrs...)
	}
	if len(items) == 0 && given > 0 {
		err := fmt.Errorf("%w: none of its %d item(s) kept (%d citing only seqs outside %d..%d, %d restating the observer's instructions)",
			ErrEmptyAnswer, given, d.Uncited, first.Seq, last.Seq, d.Echoes)
		if len(echoes) > 0 {
			err = fmt.Errorf("%w: %s. %s", err, echoSummary(echoes, "observer", "turns"), groundingRule("turns"))
		}
		return nil, d, err
	}
	return items, d, nil
}

// turnSpan is the date span of turns: their oldest and newest CreatedAt
// (zero times for none).
func turnSpan(turns []Turn) (from, to time.Time) {
	for _, t := range turns {
		from, to = widen(from, to, t.CreatedAt, t.CreatedAt)
	}
	return from, to
}

// widen extends the span from..to by f..t; a zero time is unknown and
// changes nothing.
func widen(from, to, f, t time.Time) (time.Time, time.Time) {
	if !f.IsZero() && (from.IsZero() || f.Before(from)) {
		from = f
	}
	if !t.IsZero() && (to.IsZero() || t.After(to)) {
		to = t
	}
	return from, to
}

// untrustedTurns reports whether any turn holds untrusted content: a tool
// result (RoleTool).
func untrustedTurns(turns []Turn) bool {
	for _, t := range turns {
		if t.Role == RoleTool {
			return true
		}
	}
	return false
}

// markAll sets every item's trust mark to untrusted when untrusted is set,
// whatever the recorded answer says (an answer recorded under an earlier
// rule may mark fewer).
func markAll(items []Item, untrusted bool) {
	for i := range items {
		items[i].Untrusted = items[i].Untrusted || untrusted
	}
}

// storeObservation inserts obs, distilled from turns, unless a
// non-invalidated observation of the same range exists (a memoized call
// repeated, or a concurrent caller), in which case obs becomes that row.
// Retired rows count: a range condensed into a reflection is not observed
// again. A skip (skipOf) is no observation: a model's answer over its
// range, or over a range that contains it, replaces it (coveredSkips,
// dropSkip). It stores nothing when an erasure in the thread committed
// while the observer ran (ErrTurnsErased: memoKept, turnsKept).
func (o *Observer) storeObservation(ctx context.Context, obs *Observation, turns []Turn) error {
	btx, err := store.Begin(ctx, o.cfg.DB, nil)
	if err != nil {
		return fmt.Errorf("observe: store observation: %w", err)
	}
	defer btx.Rollback()
	tx := store.Bound(btx)
	if err := lockThread(ctx, tx, obs.ThreadID); err != nil {
		return err
	}
	if err := o.writable(); err != nil {
		return err
	}
	existing, err := query(ctx, tx, `SELECT `+obsColumns+` FROM observations
		WHERE thread_id = ? AND from_seq = ? AND to_seq = ? AND level = ? AND invalidated_at IS NULL
		ORDER BY created_at LIMIT 1`, obs.ThreadID, obs.FromSeq, obs.ToSeq, LevelObservation)
	if err != nil {
		return err
	}
	skips, err := coveredSkips(ctx, tx, obs)
	if err != nil {
		return err
	}
	if len(existing) > 0 && !slices.ContainsFunc(skips, func(sk Observation) bool { return sk.ID == existing[0].ID }) {
		key := obs.MemoKey
		*obs = existing[0]
		obs.MemoKey = key
		return nil
	}
	if err := memoKept(ctx, tx, obs); err != nil {
		return err
	}
	if err := o.turnsKept(ctx, turns); err != nil {
		return forgetAnswer(ctx, btx, obs, err)
	}
	now := o.cfg.Now().UTC()
	for _, sk := range skips {
		if err := dropSkip(ctx, tx, sk, now); err != nil {
			return err
		}
	}
	obs.ID = ulid.Make().String()
	obs.CreatedAt = now.Truncate(1e6)
	if err := insert(ctx, tx, obs); err != nil {
		return err
	}
	if err := commit(ctx, btx); err != nil {
		return fmt.Errorf("observe: store observation: %w", err)
	}
	return nil
}

// memoKept checks, in the store transaction tx (bound: store.Bound; after
// lockThread), that the memo entry obs was distilled under is still
// recorded. Invalidate deletes it with the erased range's observations, so
// when it is gone an erasure committed after the observer read its answer
// (an observer in another process, which the engine's fence does not
// reach): the answer may hold erased turns and is not stored
// (ErrTurnsErased).
func memoKept(ctx context.Context, tx store.Conn, obs *Observation) error {
	kept, err := journal.HasMemo(ctx, tx, obs.MemoKey)
	if err != nil {
		return fmt.Errorf("observe: store observation: %w", err)
	}
	if !kept {
		return fmt.Errorf("%w: %s %d..%d", ErrTurnsErased, obs.ThreadID, obs.FromSeq, obs.ToSeq)
	}
	return nil
}

// turnsKept reads the turns of the range again, inside the store
// transaction (after lockThread, so an erasure in the thread has either
// committed or not yet reached Invalidate, which will then see the new
// row), and checks that they are the turns the answer was distilled from:
// an erasure deletes its turns, so an answer computed from turns read
// before an erasure that committed during the model call is not stored
// (ErrTurnsErased). It reads through the Source, on the pool: committed
// state.
func (o *Observer) turnsKept(ctx context.Context, turns []Turn) error {
	first, last := turns[0], turns[len(turns)-1]
	now, err := o.cfg.Source.Messages(ctx, first.ThreadID, first.Seq, last.Seq)
	if err != nil {
		return fmt.Errorf("observe: read %s: %w", first.ThreadID, err)
	}
	same := len(now) == len(turns)
	for i := 0; same && i < len(now); i++ {
		same = now[i].ID == turns[i].ID && now[i].Seq == turns[i].Seq
	}
	if !same {
		return fmt.Errorf("%w: %s %d..%d", ErrTurnsErased, first.ThreadID, first.Seq, last.Seq)
	}
	return nil
}

// forgetAnswer deletes, in the store transaction btx, the memo entry of
// obs, whose turns were erased since the answer was computed (turnsKept's
// err): it was recorded after the erasure forgot the thread's memo
// entries, and the range's key would otherwise return the erased turns'
// answer to the next call over the same seqs. It commits and returns err.
func forgetAnswer(ctx context.Context, btx *store.Tx, obs *Observation, err error) error {
	if !errors.Is(err, ErrTurnsErased) {
		return err
	}
	if derr := journal.ForgetMemo(ctx, btx, obs.MemoKey); derr != nil {
		return fmt.Errorf("observe: forget memo entry %s: %w", obs.MemoKey, derr)
	}
	if cerr := commit(ctx, btx); cerr != nil {
		return fmt.Errorf("observe: forget memo entry %s: %w", obs.MemoKey, cerr)
	}
	return err
}

// lockThread serialises, on Postgres, the transactions that write
// threadID's observations (storeObservation, storeReflection,
// Invalidate) with a transaction-scoped advisory lock per thread of the
// current schema (advisory locks are the database's: two deployments in
// two schemas must not wait for each other), released at commit or
// rollback; tx is bound (store.Bound). SQLite needs
// none: its write transactions run one at a time (BEGIN IMMEDIATE), and
// this gives Postgres the same order. Without it, under READ COMMITTED, two
// processes could each find no observation of a range and insert one
// each, and an erasure could miss a reflection committed between its read
// and its writes.
func lockThread(ctx context.Context, tx store.Conn, threadID string) error {
	if store.DialectOfConn(tx) != store.Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('mnemo.observe:' || current_schema() || '/' || $1))`, threadID); err != nil {
		return fmt.Errorf("observe: lock thread %s: %w", threadID, err)
	}
	return nil
}

// insert stores obs in tx (bound: store.Bound). The untrusted flag is
// bound as a bool: SQLite stores it as 1 or 0, Postgres as a BOOLEAN.
func insert(ctx context.Context, tx store.Conn, obs *Observation) error {
	sources, err := json.Marshal(obs.Sources)
	if err != nil {
		return fmt.Errorf("observe: store %s: %w", obs.Level, err)
	}
	if obs.Sources == nil {
		sources = []byte("[]")
	}
	var fromTime, toTime sql.NullInt64
	if !obs.FromTime.IsZero() && !obs.ToTime.IsZero() {
		fromTime = sql.NullInt64{Int64: obs.FromTime.UnixMilli(), Valid: true}
		toTime = sql.NullInt64{Int64: obs.ToTime.UnixMilli(), Valid: true}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO observations
		(id, thread_id, resource_id, from_seq, to_seq, level, content, sources, untrusted, created_at, from_time, to_time)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		obs.ID, obs.ThreadID, obs.ResourceID, obs.FromSeq, obs.ToSeq, obs.Level, obs.Content,
		string(sources), obs.Untrusted, obs.CreatedAt.UnixMilli(), fromTime, toTime)
	if err != nil {
		return fmt.Errorf("observe: store %s: %w", obs.Level, err)
	}
	return nil
}

// coveredSkips returns the skips (skipTurns) that obs, a model's answer
// over its range (ObserveRange, retrySkip), replaces: the live empty rows
// within obs's range whose skip record is in the journal; none when obs
// is itself a skip. Before, storeObservation kept a skip of obs's range
// (the answer was recorded and never stored, ObserveRange returned the
// empty row: rev70), and a skip inside a wider range stayed listed by
// Skips, and sent again under another model, beside the observation of
// its turns (rev70 #5).
func coveredSkips(ctx context.Context, tx store.Conn, obs *Observation) ([]Observation, error) {
	if obs.MemoKey == skipKey(obs.ThreadID, obs.FromSeq, obs.ToSeq) {
		return nil, nil
	}
	empty, err := query(ctx, tx, `SELECT `+obsColumns+` FROM observations
		WHERE thread_id = ? AND from_seq >= ? AND to_seq <= ? AND level = ? AND content = ''
		AND retired_at IS NULL AND invalidated_at IS NULL`, obs.ThreadID, obs.FromSeq, obs.ToSeq, LevelObservation)
	if err != nil {
		return nil, err
	}
	var skips []Observation
	for _, e := range empty {
		skipped, err := journal.HasMemo(ctx, tx, skipKey(e.ThreadID, e.FromSeq, e.ToSeq))
		if err != nil {
			return nil, fmt.Errorf("observe: store observation: %w", err)
		}
		if !skipped {
			continue // observed, nothing worth keeping: no skip
		}
		skips = append(skips, e)
	}
	return skips, nil
}

// dropSkip invalidates sk, the row of a skip an observation of its range
// or of a range containing it replaces (coveredSkips), and deletes its skip record: the range is
// observed, no longer skipped.
func dropSkip(ctx context.Context, tx store.Conn, sk Observation, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE observations SET invalidated_at = ? WHERE id = ?`, now.UnixMilli(), sk.ID); err != nil {
		return fmt.Errorf("observe: replace skip %s: %w", sk.ID, err)
	}
	key := skipKey(sk.ThreadID, sk.FromSeq, sk.ToSeq)
	if err := journal.ForgetMemo(ctx, tx, key); err != nil {
		return fmt.Errorf("observe: forget skip %s: %w", key, err)
	}
	return nil
}
