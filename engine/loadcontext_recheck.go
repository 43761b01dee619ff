package engine

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/journal"
)

// recheckErased is the check of a run's record before it is stored
// (journal.PutMemCtxChecked): on Postgres, under the run-context lock of
// the resource, so every erasure of the resource that another process
// (another pool) committed after the context read its turns is seen here,
// and none commits until the record is stored. The fence (fence.go)
// orders erasures of this engine only. One statement counts the
// context's turns (those of the prompt and those dropped, whose previews
// the record lists) and rendered observations still stored and live, and
// reads the thread's owner. When the thread the context read was erased
// meanwhile, nothing is recorded (ErrThreadNotFound, as in one process);
// when a turn or an observation is gone, the record is scrubbed as the
// erasure would have scrubbed it had it come right after (scrubRaced).
func (l *load) recheckErased(ctx context.Context, q store.Conn, rec *journal.MemCtx) error {
	held := l.heldTurns()
	ids := make([]string, 0, len(held))
	for id := range held {
		ids = append(ids, id)
	}
	obs := make([]string, 0, len(l.obs))
	for _, o := range l.obs {
		obs = append(obs, o.ID)
	}
	var stored, live int
	var owner sql.NullString
	err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM messages WHERE id = ANY(?::text[])),
		(SELECT count(*) FROM observations WHERE id = ANY(?::text[]) AND invalidated_at IS NULL),
		(SELECT resource_id FROM threads WHERE id = ?)`, ids, obs, l.req.ThreadID).Scan(&stored, &live, &owner)
	if err != nil {
		return fmt.Errorf("engine: recheck the context of run %s: %w", l.req.RunID, err)
	}
	if (l.existed || l.threadSeq > 0) && owner.String != l.req.ResourceID {
		return fmt.Errorf("%w: %s was erased while its context was composed", ErrThreadNotFound, l.req.ThreadID)
	}
	if stored == len(ids) && live == len(obs) {
		return nil
	}
	return l.scrubRaced(ctx, q, rec, held, ids, live < len(obs))
}

// heldTurn is a turn whose id a record names: its thread, its content,
// and whether it reached the prompt (not dropped).
type heldTurn struct {
	thread, content string
	prompt          bool
}

// heldTurns are the turns of the context's record by message id: those
// of the prompt (every recent one, listed or not, and the recalled ones)
// and those dropped.
func (l *load) heldTurns() map[string]heldTurn {
	out := make(map[string]heldTurn, len(l.turns)+len(l.drops))
	for _, d := range l.drops {
		out[d.ID] = heldTurn{thread: d.ThreadID, content: d.Content}
	}
	for _, t := range l.turns {
		if t.Reason != journal.ReasonUnsettled && t.ID != "" {
			out[t.ID] = heldTurn{thread: t.ThreadID, content: t.Content, prompt: true}
		}
	}
	return out
}

// scrubRaced scrubs rec for the turns of held that an erasure removed
// after the context read them (journal.ScrubRecord): their previews and a
// query quoting them become journal.ErasedPreview, the ids of a deleted
// thread become tombstones of a key of its own, and the record is marked
// contextErased when one reached the prompt or a rendered observation was
// invalidated (obsGone), so that the run writes no working memory back.
func (l *load) scrubRaced(ctx context.Context, q store.Conn, rec *journal.MemCtx, held map[string]heldTurn, ids []string, obsGone bool) error {
	present, err := queryIDs(ctx, q, `SELECT id FROM messages WHERE id = ANY(?::text[])`, ids)
	if err != nil {
		return err
	}
	texts, inPrompt := map[string]string{}, false
	var threads []string
	for id, h := range held {
		if !present[id] {
			texts[id], inPrompt = h.content, inPrompt || h.prompt
			threads = append(threads, h.thread)
		}
	}
	live, err := queryIDs(ctx, q, `SELECT id FROM threads WHERE id = ANY(?::text[])`, threads)
	if err != nil {
		return err
	}
	deleted := map[string]bool{}
	for _, t := range threads {
		deleted[t] = !live[t]
	}
	ts, err := newTombstones()
	if err != nil {
		return err
	}
	erased := journal.ErasedTexts(texts)
	erased.Held = func(*journal.MemCtx) bool { return inPrompt || obsGone }
	return journal.ScrubRecord(ctx, rec, erased, journal.Entomb{Of: ts.of, Deleted: deleted})
}

// queryIDs runs q's statement of one text[] argument, ids, and returns
// the ids it selects.
func queryIDs(ctx context.Context, q store.Conn, query string, ids []string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, query, ids)
	if err != nil {
		return nil, fmt.Errorf("engine: recheck: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("engine: recheck: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}
