package observe

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// Invalidate is erasure's half of observational memory. Inside the caller's
// transaction tx it invalidates every observation of threadID whose range
// ends at or after fromSeq (the lowest erased seq; 1 for a whole thread),
// every reflection built on one of them (transitively), and scrubs their
// content; it also deletes the thread's memo entries from the journal, so a
// later observer call over the same range cannot return an answer derived
// from the erased turns (DESIGN.md, "Erasure": a summary cannot prove it
// forgot one turn selectively, so it goes whole), but the records of the
// skips (Skip) it leaves live, which end before fromSeq and hold no text
// (skipRecordsKept). Untouched sources of an
// invalidated reflection are live again. Rows are kept, with invalidated_at
// set and empty content, so memctx references stay resolvable and replay can
// report them. It returns the ids invalidated.
//
// Observations after the erased turn go too, although their turns survive:
// the observer keeps one watermark per thread (the highest observed seq),
// which must fall back to before fromSeq so that the surviving turns of the
// erased range are observed again; the later ones are observed again with
// them. Erasure is rare; a hole-tracking observer would save those calls.
//
// On Postgres Invalidate first takes the thread's observation lock (an
// advisory lock held until tx ends), so no observer of another process stores into the
// thread between its read and its writes.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func Invalidate(ctx context.Context, tx store.Conn, threadID string, fromSeq int64, now time.Time) ([]string, error) {
	tx = store.Bound(tx)
	if err := lockThread(ctx, tx, threadID); err != nil {
		return nil, err
	}
	rows, err := query(ctx, tx, `SELECT `+obsColumns+` FROM observations
		WHERE thread_id = ? AND invalidated_at IS NULL`, threadID)
	if err != nil {
		return nil, err
	}
	hit := map[string]bool{}
	for _, o := range rows {
		if o.ToSeq >= fromSeq {
			hit[o.ID] = true
		}
	}
	// Reflections on invalidated sources go too, to a fixed point.
	for changed := len(hit) > 0; changed; {
		changed = false
		for _, o := range rows {
			if hit[o.ID] {
				continue
			}
			for _, s := range o.Sources {
				if hit[s] {
					hit[o.ID], changed = true, true
					break
				}
			}
		}
	}
	var ids []string
	for _, o := range rows {
		if !hit[o.ID] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE observations SET invalidated_at = ?, content = '' WHERE id = ?`,
			now.UnixMilli(), o.ID); err != nil {
			return nil, fmt.Errorf("observe: invalidate %s: %w", o.ID, err)
		}
		ids = append(ids, o.ID)
	}
	// Sources of an invalidated reflection that are themselves untouched
	// come back into force: their turns were not erased.
	for _, o := range rows {
		if !hit[o.ID] {
			continue
		}
		for _, src := range o.Sources {
			if hit[src] {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE observations SET retired_at = NULL WHERE id = ? AND invalidated_at IS NULL`, src); err != nil {
				return nil, fmt.Errorf("observe: restore %s: %w", src, err)
			}
		}
	}
	keep, err := skipRecordsKept(ctx, tx, threadID, rows, hit)
	if err != nil {
		return nil, err
	}
	lo, hi := memoKeyRange(threadID)
	if err := journal.ForgetMemos(ctx, tx, lo, hi, keep); err != nil {
		return nil, fmt.Errorf("observe: forget memo entries of %s: %w", threadID, err)
	}
	return ids, nil
}

// skipRecordsKept returns the memo keys of the records of the skips
// Invalidate leaves live (rows, hit: those it invalidates): a skip's
// (skipKey) and its refusals again under other models (skipRetryKey).
// They hold seqs, reasons, times and models, no text, of turns not
// erased. Before, Invalidate forgot them with the thread's other memo
// entries: a skip before the erased seq kept its empty row, an
// observation of nothing, its turns neither observed, nor listed by
// Skips, nor sent again under another model.
func skipRecordsKept(ctx context.Context, tx store.Conn, threadID string, rows []Observation, hit map[string]bool) ([]string, error) {
	var keep []string
	for _, o := range rows {
		if hit[o.ID] || o.Level != LevelObservation || o.Content != "" {
			continue
		}
		retried := skipRetryKey(threadID, o.FromSeq, o.ToSeq, "")
		keys, err := journal.MemoKeys(ctx, tx, skipKey(threadID, o.FromSeq, o.ToSeq), retried, retried[:len(retried)-1]+"}")
		if err != nil {
			return nil, fmt.Errorf("observe: skips of %s: %w", threadID, err)
		}
		if !slices.Contains(keys, skipKey(threadID, o.FromSeq, o.ToSeq)) {
			continue // an observation of nothing
		}
		keep = append(keep, keys...)
	}
	return keep, nil
}

// memoKeyRange returns the byte-order range [lo, hi) of threadID's memo
// keys: lo is MemoPrefix(threadID), hi is lo with its final '|' raised to
// '}', so the range holds exactly the keys beginning with lo. A thread id
// holds no '|' (engine.ValidID), so the keys of a thread whose id begins
// with threadID's ("a" and "ab": "observe|a|" and "observe|ab|") are
// outside it.
func memoKeyRange(threadID string) (lo, hi string) {
	lo = MemoPrefix(threadID)
	return lo, lo[:len(lo)-1] + "}"
}
