package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Erasure's half of the journal: the functions below run inside the
// erasing caller's transaction (the engine's erasure, DESIGN.md
// "Erasure"), as observe.Invalidate does for observations. The caller
// decides what is erased; the journal tombstones, scrubs and deletes its
// own records (the journal and runs tables) accordingly.

// Journal scopes written by erasure (no content is ever stored under them,
// only ids and seqs).
const (
	// ScopeErasing holds one marker per erasure whose transaction committed
	// and whose physical purge (index removal, segment merge, WAL
	// checkpoint) has not finished; the engine's Open completes them.
	ScopeErasing = "erasing"
	// ScopeErased holds one tombstone per erased seq, keyed
	// "<threadId>:<seq>", so a consistency check can tell an erased seq
	// from a gap.
	ScopeErased = "erased"
)

// ErasedPreview replaces the preview of an erased turn in memctx records
// (the reference itself stays, so replay reports the turn as erased), and
// the query of a record that quoted one.
const ErasedPreview = "[erased]"

// TombstoneSeq records in tx that seq of thread (owned by resource) was
// erased (scope ScopeErased); seqs are never reused, and the tombstone
// tells an erased seq from a gap. Recording it twice is a no-op.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func TombstoneSeq(ctx context.Context, tx store.Conn, thread, resource string, seq int64, now time.Time) error {
	return tombstone(ctx, store.Bound(tx), ScopeErased, thread+":"+strconv.FormatInt(seq, 10), thread, resource, now)
}

// tombstone writes in tx (bound) the content-free record (scope, key) of
// thread and resource at now, with an empty output; writing it twice is a
// no-op.
func tombstone(ctx context.Context, tx store.Conn, scope, key, thread, resource string, now time.Time) error {
	q := store.DialectOfConn(tx).Text(
		`INSERT OR IGNORE INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES (?, ?, ?, ?, x'', ?)`,
		`INSERT INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES ($1, $2, $3, $4, ''::bytea, $5)
		ON CONFLICT DO NOTHING`)
	if _, err := tx.ExecContext(ctx, q, scope, key, thread, resource, now.UnixMilli()); err != nil {
		return fmt.Errorf("journal: erase: tombstone: %w", err)
	}
	return nil
}

// DeleteThread deletes in tx what the journal keeps of a deleted thread
// other than its runs' memctx records (DeleteRuns): its seq tombstones,
// its records of seqs lost to a salvage (ScopeLost), the tool
// applications recorded under it and its dispatches' tombstones
// (ScopeDispatchErased).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DeleteThread(ctx context.Context, tx store.Conn, thread string) error {
	tx = store.Bound(tx)
	for _, q := range []string{
		`DELETE FROM journal WHERE scope = '` + ScopeErased + `' AND thread_id = ?`,
		`DELETE FROM journal WHERE scope = '` + ScopeLost + `' AND thread_id = ?`,
		`DELETE FROM journal WHERE scope = '` + ScopeTool + `' AND thread_id = ?`,
		`DELETE FROM journal WHERE scope = '` + ScopeDispatchErased + `' AND thread_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, thread); err != nil {
			return fmt.Errorf("journal: erase thread %s: %w", thread, err)
		}
	}
	return nil
}

// ForgetRunTools deletes in tx the tool applications of run runID: those
// whose key (ToolKey.String, the JSON array [run, thread, resource, call])
// begins with runID's JSON string. The statement reads one byte-order
// range of an index (toolKeyRange), not every tool application: SQLite's
// primary key compares in byte order; Postgres's own collation need not,
// and its journal_tool_key_bytes index (migration 10) holds the keys in
// byte order.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ForgetRunTools(ctx context.Context, tx store.Conn, runID string) error {
	tx = store.Bound(tx)
	lo, hi := toolKeyRange(runID)
	if _, err := tx.ExecContext(ctx, store.DialectOfConn(tx).Text(forgetRunToolsSQLite, forgetRunToolsPostgres), lo, hi); err != nil {
		return fmt.Errorf("journal: erase: tool applications of run %s: %w", runID, err)
	}
	return nil
}

// ForgetRunTools' statements, in byte order: SQLite's keys compare
// bytewise (BINARY), Postgres's through COLLATE "C", which
// journal_tool_key_bytes indexes (WHERE scope = 'tool': the scope is
// written out, as a bound one would not match the partial index).
const (
	forgetRunToolsSQLite   = `DELETE FROM journal WHERE scope = '` + ScopeTool + `' AND key >= ? AND key < ?`
	forgetRunToolsPostgres = `DELETE FROM journal WHERE scope = '` + ScopeTool + `' AND key COLLATE "C" >= $1 AND key COLLATE "C" < $2`
)

// toolKeyRange returns the byte-order range [lo, hi) of the keys of run
// runID's tool applications: lo is `["<runID>",` as ToolKey.String writes
// it, and hi is lo with its final ',' raised to '-', so the range holds
// exactly the keys beginning with lo (a run id that another one begins
// with, run-1 and run-10, is another JSON string: `["run-1",` and
// `["run-10",`).
func toolKeyRange(runID string) (lo, hi string) {
	lo = strings.TrimSuffix(ToolKey{RunID: runID}.String(), `"","",""]`)
	return lo, lo[:len(lo)-1] + "-"
}

// DeleteRuns deletes in tx the memctx records of thread's runs recorded
// under resource, the thread's owner (a deleted thread leaves no run
// listing; the run ids stay claimed in runs), and returns how many it
// deleted. Another resource's runs on the same thread id (a LoadContext of
// that resource before the thread existed; resource created it later) are
// its records, not the thread's: they are kept, and the erasure entombs the
// thread id in them (EntombThread), as in the records other threads keep.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DeleteRuns(ctx context.Context, tx store.Conn, thread, resource string) (int, error) {
	tx = store.Bound(tx)
	r, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND thread_id = ? AND resource_id IN (?, '')`, ScopeMemCtx, thread, resource)
	if err != nil {
		return 0, fmt.Errorf("journal: erase: runs of thread %s: %w", thread, err)
	}
	n, _ := r.RowsAffected()
	return int(n), nil
}

// DeleteResourceRuns deletes in tx the memctx records and tool
// applications of every run recorded under resource, whatever thread id
// they name (an erased resource leaves no run listing, also of its runs on
// a thread another resource holds), and returns how many records it
// deleted. The run ids stay claimed in runs (the erasure entombs them).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func DeleteResourceRuns(ctx context.Context, tx store.Conn, resource string) (int, error) {
	tx = store.Bound(tx)
	rows, err := tx.QueryContext(ctx, `SELECT key FROM journal WHERE scope = ? AND resource_id = ?`, ScopeMemCtx, resource)
	if err != nil {
		return 0, fmt.Errorf("journal: erase: runs of resource: %w", err)
	}
	var runs []string
	for rows.Next() {
		var key string
		if err := rows.Scan(&key); err != nil {
			rows.Close()
			return 0, fmt.Errorf("journal: erase: runs of resource: %w", err)
		}
		runs = append(runs, strings.TrimSuffix(key, MemCtxKey("")))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("journal: erase: runs of resource: %w", err)
	}
	for _, run := range runs {
		if err := ForgetRunTools(ctx, tx, run); err != nil {
			return 0, err
		}
	}
	r, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND resource_id = ?`, ScopeMemCtx, resource)
	if err != nil {
		return 0, fmt.Errorf("journal: erase: runs of resource: %w", err)
	}
	n, _ := r.RowsAffected()
	return int(n), nil
}

// MarkErasing writes in tx the marker of an erasure (scope ScopeErasing):
// its existence after commit means its physical purge is owed. info is a
// small JSON description (kind and counts, never content).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func MarkErasing(ctx context.Context, tx store.Conn, marker string, info []byte, now time.Time) error {
	tx = store.Bound(tx)
	if _, err := tx.ExecContext(ctx, `INSERT INTO journal (scope, key, output, created_at) VALUES (?, ?, ?, ?)`,
		ScopeErasing, marker, info, now.UnixMilli()); err != nil {
		return fmt.Errorf("journal: erase: marker: %w", err)
	}
	return nil
}

// Erasing returns how many erasure markers are stored (erasures whose
// physical purge is owed). Errors: the database's (ctx's when cancelled).
func (j *Journal) Erasing(ctx context.Context) (int, error) {
	var n int
	if err := j.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM journal WHERE scope = ?`, ScopeErasing).Scan(&n); err != nil {
		return 0, fmt.Errorf("journal: read erasure markers: %w", err)
	}
	return n, nil
}

// ClearErasing deletes the erasure marker marker, or every marker when
// marker is "". It is for the engine's purge, once the purge is done: a
// marker cleared before leaves the purge owed and forgotten. For mnemo's
// own packages: never call it on an engine's journal (engine.Engine.Journal).
// Errors: the database's (ctx's when cancelled).
func (j *Journal) ClearErasing(ctx context.Context, marker string) error {
	q, args := `DELETE FROM journal WHERE scope = ?`, []any{ScopeErasing}
	if marker != "" {
		q, args = q+` AND key = ?`, append(args, marker)
	}
	if _, err := j.conn.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("journal: clear erasure marker: %w", err)
	}
	return nil
}

// ClearErasings deletes exactly the erasure markers markers (none when it
// is empty), for a purge that completed several erasures at once. For
// mnemo's own packages: a marker cleared before its purge is done leaves
// the purge owed and forgotten, so never call it on an engine's journal
// (engine.Engine.Journal). Errors: the database's (ctx's when cancelled).
func (j *Journal) ClearErasings(ctx context.Context, markers []string) error {
	const chunk = 500 // below every dialect's bound on bound parameters
	for len(markers) > 0 {
		n := min(chunk, len(markers))
		args := []any{ScopeErasing}
		for _, m := range markers[:n] {
			args = append(args, m)
		}
		q := `DELETE FROM journal WHERE scope = ? AND key IN (?` + strings.Repeat(`, ?`, n-1) + `)`
		if _, err := j.conn.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("journal: clear erasure markers: %w", err)
		}
		markers = markers[n:]
	}
	return nil
}

// MemCtxTx is RawMemCtx inside tx: the stored bytes of runID's memctx
// record, or ErrNotFound.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func MemCtxTx(ctx context.Context, tx store.Conn, runID string) ([]byte, error) {
	tx = store.Bound(tx)
	var raw []byte
	err := tx.QueryRowContext(ctx, `SELECT output FROM journal WHERE scope = ? AND key = ?`, ScopeMemCtx, MemCtxKey(runID)).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("journal: read memctx of run %s: %w", runID, err)
	}
	return raw, nil
}

// ScrubMemCtx rewrites in tx the memctx records of resource: every
// reference to an erased message keeps its thread, seq, id and role but
// gets ErasedPreview (replay reports the turn as no longer stored), except
// a reference to a turn of a deleted thread (en.Deleted), whose thread and
// message ids become tombstones (en.Of) as well, as EntombMemCtx makes
// them: a run of another thread that recalled the deleted thread's turns
// keeps their seq and role but names neither the thread nor its messages.
// An observation reference of a deleted thread gets its thread's
// tombstone too, and so does a deleted thread's id that the run's recall
// filter names ({"threadId": …}). A query that quotes an erased turn (or is quoted by one)
// is replaced by ErasedPreview (Erased.Quotes: the erased texts are read
// once for every record), but in a record of a deleted thread that
// changed otherwise, which is counted without reading the texts: the
// caller deletes it (DeleteRuns; resource is then the deleted threads'
// owner, so every such record read here is one DeleteRuns deletes). A record that cannot be decoded is
// deleted when it quotes an erased turn. A record whose run held an
// erased turn gets MemCtx.ContextErased: a recent or recalled reference to
// one (or to a turn of a deleted thread), a query quoting one, or what
// erased.Held finds in it; CheckRunContext refuses that run's working-memory
// writes. en.Of may be nil when en.Deleted is
// empty (an erasure of messages). It returns how many records changed and
// the run ids of the records of the deleted threads.
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func ScrubMemCtx(ctx context.Context, tx store.Conn, resource string, erased Erased, en Entomb) (int, []string, error) {
	recs, err := readScrubbed(ctx, store.Bound(tx), resource)
	if err != nil {
		return 0, nil, err
	}
	// The references first; then the queries and the unreadable records
	// are checked against the erased texts together, in one read of them
	// (Erased.Quotes). A deleted thread's record that changed already is
	// not asked about: the caller deletes it (DeleteRuns, under resource,
	// the thread's owner), so its query only counts when nothing else
	// changed it.
	var queries []string
	var raws [][]byte
	var runs []string
	for i := range recs {
		r := &recs[i]
		switch {
		case r.rec == nil:
			raws = append(raws, r.raw)
		default:
			if en.Deleted[r.thread] {
				runs = append(runs, r.rec.RunID)
			}
			r.held = r.rec.held(erased, en) // before the scrub entombs its references
			r.changed = r.rec.scrub(erased.IDs, en)
			if !r.changed || !en.Deleted[r.thread] {
				queries = append(queries, r.rec.Query)
			}
		}
	}
	quotedBy, quoted, err := erased.Quotes(ctx, queries, raws)
	if err != nil {
		return 0, nil, err
	}
	var updates []rewrite
	for _, r := range recs {
		if r.rec == nil {
			// Unreadable (corrupt): it cannot be scrubbed, so it goes
			// when it quotes an erased turn or names one.
			if quoted[0] {
				updates = append(updates, rewrite{r.key, nil})
			}
			quoted = quoted[1:]
			continue
		}
		if quotedBy[r.rec.Query] {
			r.rec.Query, r.changed, r.held = ErasedPreview, true, true
		}
		if r.held && !r.rec.ContextErased {
			r.rec.ContextErased, r.changed = true, true
		}
		if r.changed {
			b, err := marshalRecord(r.rec)
			if err != nil {
				return 0, nil, fmt.Errorf("journal: erase: encode memctx %s: %w", r.key, err)
			}
			updates = append(updates, rewrite{r.key, b})
		}
	}
	if err := applyRewrites(ctx, tx, updates, "scrub"); err != nil {
		return 0, nil, err
	}
	return len(updates), runs, nil
}

// MemCtxQueries returns, through tx, the queries of resource's memctx
// records (one per record that has one and can be decoded, in no set
// order): the questions an erasure's working-memory check may ask of the
// erased texts, asked together (Erased.Quotes).
//
// For mnemo's own packages: the engine hands out neither its database nor a
// transaction on it.
func MemCtxQueries(ctx context.Context, tx store.Conn, resource string) ([]string, error) {
	rows, err := store.Bound(tx).QueryContext(ctx, `SELECT output FROM journal WHERE scope = ? AND resource_id = ?`, ScopeMemCtx, resource)
	if err != nil {
		return nil, fmt.Errorf("journal: erase: read memctx queries: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("journal: erase: read memctx queries: %w", err)
		}
		var rec struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(raw, &rec) == nil && rec.Query != "" {
			out = append(out, rec.Query)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: erase: read memctx queries: %w", err)
	}
	return out, nil
}

// scrubbed is a memctx record ScrubMemCtx reads: decoded, or raw when it
// cannot be decoded (rec nil).
type scrubbed struct {
	key, thread string
	rec         *MemCtx
	raw         []byte
	changed     bool // scrub changed rec
	held        bool // rec's run held an erased turn (MemCtx.held, or its query quotes one)
}

// readScrubbed reads, through tx (bound), the memctx records of resource.
func readScrubbed(ctx context.Context, tx store.Conn, resource string) ([]scrubbed, error) {
	rows, err := tx.QueryContext(ctx, `SELECT key, thread_id, output FROM journal WHERE scope = ? AND resource_id = ?`, ScopeMemCtx, resource)
	if err != nil {
		return nil, fmt.Errorf("journal: erase: read memctx records: %w", err)
	}
	defer rows.Close()
	var out []scrubbed
	for rows.Next() {
		var r scrubbed
		var raw []byte
		if err := rows.Scan(&r.key, &r.thread, &raw); err != nil {
			return nil, fmt.Errorf("journal: erase: read memctx records: %w", err)
		}
		var rec MemCtx
		if json.Unmarshal(raw, &rec) != nil {
			r.raw = raw
		} else {
			r.rec = &rec
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal: erase: read memctx records: %w", err)
	}
	return out, nil
}

// held reports whether rec's run held a turn of erased in its context: a
// recent or recalled reference to an erased message or to a turn of a
// deleted thread, or what erased.Held finds (the query is asked apart:
// ScrubMemCtx). Dropped turns did not reach the prompt.
func (rec *MemCtx) held(erased Erased, en Entomb) bool {
	for _, list := range [][]Ref{rec.Recent, rec.Recalled} {
		for _, r := range list {
			if erased.IDs[r.MessageID] || en.Deleted[r.ThreadID] {
				return true
			}
		}
	}
	return erased.Held != nil && erased.Held(rec)
}

// scrub scrubs rec's references in place (see ScrubMemCtx: its query is
// ScrubMemCtx's, once the texts are read) and reports whether anything
// changed; ids are the erased messages' ids.
func (rec *MemCtx) scrub(ids map[string]bool, en Entomb) bool {
	changed := false
	for _, list := range [][]Ref{rec.Recalled, rec.Recent, rec.Dropped, rec.Unsettled} {
		for i := range list {
			if en.ref(&list[i]) {
				changed = true
				continue
			}
			if ids[list[i].MessageID] && list[i].Preview != ErasedPreview {
				list[i].Preview = ErasedPreview
				changed = true
			}
		}
	}
	for i := range rec.Observations {
		changed = en.observation(&rec.Observations[i]) || changed
	}
	var f bool
	rec.Options.Filter, f = en.filter(rec.Options.Filter)
	return changed || f
}

// rewrite is a memctx record's new output; nil deletes the record.
type rewrite struct {
	key string
	out []byte
}

// applyRewrites writes the rewrites in tx; step names them in errors.
func applyRewrites(ctx context.Context, tx store.Conn, updates []rewrite, step string) error {
	tx = store.Bound(tx)
	for _, u := range updates {
		q, args := `UPDATE journal SET output = ? WHERE scope = ? AND key = ?`, []any{u.out, ScopeMemCtx, u.key}
		if u.out == nil {
			q, args = `DELETE FROM journal WHERE scope = ? AND key = ?`, args[1:]
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("journal: erase: %s memctx %s: %w", step, u.key, err)
		}
	}
	return nil
}
