package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/working"
)

// rebuildWorkingMemory makes the working memory of resources forget what
// erased turns fed it (DESIGN.md, "Erasure"; docs/cli.md, working
// memory and erasure). Working memory is derived like an observation: a version
// written by a run whose context held an erased turn is invalidated, and
// each state is rebuilt by re-applying the remaining versions' changes
// (working.Rebuild). A run held an erased turn when its memctx record
// (read before it is scrubbed) lists it in the recent window or among the
// recalled turns, when the window (beyond the record's cap of listed
// entries) covered its seq, when its query quotes it, when it rendered an
// observation this erasure invalidated, or when the run belongs to a
// deleted thread; and a version written by a tool call of an erased
// assistant message (the call itself, which carried the update) goes too.
// A version whose run left no record (not written by a run, or pruned by
// retention) is kept: nothing says what it saw.
//
// The states of a resource being erased whole and of deleted threads are
// not rebuilt: they are deleted afterwards. It adds how many versions were
// invalidated to the result.
func (e *Engine) rebuildWorkingMemory(ctx context.Context, tx *store.Tx, er *erasure) error {
	if len(er.msgs) == 0 && len(er.deleted) == 0 {
		return nil
	}
	t := &wmTaint{tx: tx, ms: e.ms, erased: er.msgs, texts: er.texts, unnamed: er.unnamed(), runs: map[string]bool{}}
	for _, r := range er.resources {
		if er.kind != eraseResource || r != er.target {
			t.resources = append(t.resources, r)
		}
	}
	skip := func(key string) bool {
		scope, id, err := working.ParseKey(key)
		return err == nil && scope == working.ScopeThread && er.deleted[id]
	}
	for _, r := range er.resources {
		if er.kind == eraseResource && r == er.target {
			continue // its working memory goes whole (deleteResource)
		}
		n, err := working.Invalidate(ctx, tx, r, skip, e.wmInitial, er.now, func(v working.Version) (bool, error) { return t.drop(ctx, v) })
		if err != nil {
			return fmt.Errorf("engine: erase: %w", err)
		}
		er.res.WorkingMemoryInvalidated += n
	}
	return nil
}

// wmInitial is the never-written state of a mode: the configured template
// when the engine's working memory is in that mode, else "{}" or "".
func (e *Engine) wmInitial(mode working.Mode) string {
	if mem, err := e.WorkingMemory(); err == nil && mem.Mode() == mode {
		return mem.Initial()
	}
	if mode == working.ModeSchema {
		return "{}"
	}
	return ""
}

// wmTaint decides which working-memory versions an erasure invalidates;
// runs caches the answer per run id.
type wmTaint struct {
	tx        *store.Tx
	ms        *msgstore.Store
	erased    []msgstore.Message // without their texts (msgstore.ErasedPrefix)
	texts     journal.Erased     // erased: the ids, and the texts read from the rows
	unnamed   *unnamedTurns      // what the records do not name
	runs      map[string]bool
	resources []string        // whose records' queries quotedBy asks about at once
	quotes    map[string]bool // the answers for those queries (Erased.Quotes), once asked
	asked     map[string]bool // those queries
}

// quotedBy is t.texts.QuotedBy(q), asked for the queries of every record
// of t.resources in one read of the texts the first time: a run the check
// asks about is usually one of theirs, and each question alone would read
// the texts again.
func (t *wmTaint) quotedBy(ctx context.Context, q string) (bool, error) {
	if t.asked == nil {
		t.asked = map[string]bool{}
		var qs []string
		for _, r := range t.resources {
			rq, err := journal.MemCtxQueries(ctx, t.tx, r)
			if err != nil {
				return false, err
			}
			qs = append(qs, rq...)
		}
		quotes, _, err := t.texts.Quotes(ctx, qs, nil)
		if err != nil {
			return false, err
		}
		for _, q := range qs {
			t.asked[q] = true
		}
		t.quotes = quotes
	}
	if t.asked[q] {
		return t.quotes[q], nil
	}
	return t.texts.QuotedBy(ctx, q)
}

func (t *wmTaint) drop(ctx context.Context, v working.Version) (bool, error) {
	if v.RunID == "" {
		return false, nil
	}
	raw, err := journal.MemCtxTx(ctx, t.tx, v.RunID)
	if errors.Is(err, journal.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var rec journal.MemCtx
	if json.Unmarshal(raw, &rec) != nil {
		return t.texts.Quoted(ctx, raw) // unreadable: tainted when it names an erased turn
	}
	if called, err := t.calledBy(ctx, &rec, v.ToolCallID); called || err != nil {
		return called, err
	}
	saw, ok := t.runs[v.RunID]
	if !ok {
		if saw, err = t.saw(ctx, &rec); err != nil {
			return false, err
		}
		t.runs[v.RunID] = saw
	}
	return saw, nil
}

// saw reports whether a run's context held an erased turn; the check of
// its query reads the erased texts (quotedBy).
func (t *wmTaint) saw(ctx context.Context, rec *journal.MemCtx) (bool, error) {
	for _, list := range [][]journal.Ref{rec.Recent, rec.Recalled} {
		for _, r := range list {
			if t.texts.IDs[r.MessageID] {
				return true, nil
			}
		}
	}
	if t.unnamed.held(rec) {
		return true, nil
	}
	return t.quotedBy(ctx, rec.Query)
}

// unnamedTurns tells whether a run's context held an erased turn that its
// record does not name (held): the run's thread is deleted, it rendered an
// observation the erasure invalidated, or its recent window covered an
// erased seq beyond the entries the record lists (journal.RecentCap). The
// erasure's working-memory check (wmTaint.saw) and the records' mark
// (journal.Erased.Held, for the in-flight check) both ask it.
type unnamedTurns struct {
	byThread    map[string][]msgstore.Message // the erased turns of each thread
	deleted     map[string]bool
	invalidated map[string]bool // the observations and reflections the erasure invalidated
}

// unnamed returns er's unnamedTurns, made once; it needs
// invalidateObservations to have run.
func (er *erasure) unnamed() *unnamedTurns {
	if er.held == nil {
		u := &unnamedTurns{byThread: map[string][]msgstore.Message{}, deleted: er.deleted, invalidated: map[string]bool{}}
		for _, m := range er.msgs {
			u.byThread[m.ThreadID] = append(u.byThread[m.ThreadID], m)
		}
		for _, id := range er.res.Invalidated {
			u.invalidated[id] = true
		}
		er.held = u
	}
	return er.held
}

// held reports whether rec's run held an erased turn rec does not name.
func (u *unnamedTurns) held(rec *journal.MemCtx) bool {
	if u.deleted[rec.ThreadID] {
		return true
	}
	for _, o := range rec.Observations {
		if u.invalidated[o.ID] {
			return true
		}
	}
	if rec.RecentCount <= len(rec.Recent) || len(rec.Recent) == 0 {
		return false
	}
	at, _ := time.Parse(journal.TimeLayout, rec.CreatedAt)
	for _, m := range u.byThread[rec.ThreadID] {
		if m.Seq >= rec.Recent[0].Seq && storedBefore(rec, m, at, true) {
			return true // in the window beyond the listed entries
		}
	}
	return false
}

// calledBy reports whether the tool call that wrote a version was made by
// an erased assistant message: the first assistant message of the run's
// thread with that call id appended after the run composed its context
// (call ids repeat across turns: agents send call_0 every turn).
func (t *wmTaint) calledBy(ctx context.Context, rec *journal.MemCtx, callID string) (bool, error) {
	if callID == "" {
		return false, nil
	}
	at, err := time.Parse(journal.TimeLayout, rec.CreatedAt)
	if err != nil && rec.ThreadSeq == nil {
		return false, nil
	}
	// Where the run's turns start: after the thread's last seq when the
	// run read its window, or, in a record without it, after every turn
	// the record lists and from its millisecond on.
	q := msgstore.CallQuery{ThreadID: rec.ThreadID, CallID: callID, AfterSeq: lastSeenSeq(rec)}
	if rec.ThreadSeq != nil {
		q.AfterSeq = *rec.ThreadSeq
	} else {
		ms := at.UnixMilli()
		q.SinceMS = &ms
	}
	for _, m := range t.erased {
		if m.Role != RoleAssistant || m.ThreadID != rec.ThreadID || m.ToolCalls == "" || storedBefore(rec, m, at, false) {
			continue
		}
		var calls []ToolCall
		if json.Unmarshal([]byte(m.ToolCalls), &calls) != nil || !slices.ContainsFunc(calls, func(c ToolCall) bool { return c.ID == callID }) {
			continue
		}
		// An earlier message of the thread made this call. The erased
		// rows are not deleted yet (eraseTx), so an erased one counts
		// too: the answer is the same, since the earliest erased message
		// with the call after the run is then the thread's first with it
		// exactly when no kept one comes before it, and CountCalls
		// counts exactly the turns this loop does not skip as stored
		// before the run (storedBefore).
		q.BeforeSeq = m.Seq
		earlier, err := t.ms.CountCalls(ctx, t.tx, q)
		if err != nil {
			return false, err
		}
		if earlier == 0 {
			return true, nil
		}
	}
	return false, nil
}

// storedBefore reports whether m, a turn of rec's thread, was stored when
// the run read its recent window: exactly by seq (MemCtx.ThreadSeq), or, in
// a record written before ThreadSeq, when the record lists a later turn or
// by time, which cannot order a turn of the run's own millisecond (counted
// as stored when sameMs).
func storedBefore(rec *journal.MemCtx, m msgstore.Message, at time.Time, sameMs bool) bool {
	if rec.ThreadSeq != nil {
		return m.Seq <= *rec.ThreadSeq
	}
	ms := at.UnixMilli()
	return m.Seq <= lastSeenSeq(rec) || m.CreatedAt.UnixMilli() < ms || sameMs && m.CreatedAt.UnixMilli() == ms
}

// lastSeenSeq is the highest seq of the record's thread that the record
// lists (recent window or recalled); 0 when it lists none.
func lastSeenSeq(rec *journal.MemCtx) int64 {
	var seen int64
	for _, list := range [][]journal.Ref{rec.Recent, rec.Recalled} {
		for _, r := range list {
			if r.ThreadID == rec.ThreadID && r.Seq > seen {
				seen = r.Seq
			}
		}
	}
	return seen
}
