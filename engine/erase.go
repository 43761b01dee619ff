package engine

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/observe"
)

// Journal scopes written by erasure (table journal; no content is ever
// stored under them, only ids and seqs).
const (
	// ScopeErasing holds one marker per erasure whose transaction committed
	// and whose physical purge (index removal, segment merge, WAL
	// checkpoint) has not finished; Open completes them.
	ScopeErasing = "erasing"
	// ScopeErased holds one tombstone per erased seq, keyed
	// "<threadId>:<seq>", so Check can tell an erased seq from a gap.
	ScopeErased = "erased"
)

// ErasedPreview replaces the preview of an erased turn in memctx records
// (the reference itself stays, so replay reports the turn as erased).
const ErasedPreview = "[erased]"

// EraseResult reports what an erasure removed and invalidated.
type EraseResult struct {
	// Messages are the ids of the messages erased.
	Messages []string `json:"messages"`
	// NotFound are requested message ids that were not stored (an erasure
	// is idempotent: erasing again reports them here).
	NotFound []string `json:"notFound,omitempty"`
	// Threads are the threads deleted (DeleteThread, DeleteResource).
	Threads []string `json:"threads,omitempty"`
	// Invalidated are the observations and reflections invalidated.
	Invalidated []string `json:"invalidated,omitempty"`
	// MemCtxScrubbed counts memctx records whose previews were scrubbed.
	MemCtxScrubbed int `json:"memctxScrubbed"`
	// Runs counts the runs of deleted threads whose memctx records were
	// deleted: an erased thread leaves no run listing (the run ids stay
	// claimed, by an opaque tombstone, so nobody else takes them over).
	Runs int `json:"runs"`
	// WorkingMemory counts working-memory states deleted (current states
	// and history versions).
	WorkingMemory int `json:"workingMemory"`
	// WorkingMemoryInvalidated counts the working-memory versions removed
	// because the run that wrote them saw an erased turn (in its recent
	// window, its recalled turns, its query, an observation the erasure
	// invalidated, or the erased call itself), or because their change no
	// longer applies without them; the states of the erased turns'
	// resources are rebuilt from the remaining versions (working.Rebuild).
	WorkingMemoryInvalidated int `json:"workingMemoryInvalidated"`
	// Embeddings counts stored embeddings deleted.
	Embeddings int `json:"embeddings"`
	// Purge is how long the physical purge took (index removal, bleve
	// segment merge, WAL checkpoint, and a VACUUM when needed).
	Purge time.Duration `json:"purgeNanos"`

	texts  []string // erased contents, kept in memory for the residue check
	marker string   // the erasing marker of this erasure
	keys   []string // the fence keys of the threads and resources touched
}

// eraseKind says what an erasure targets.
type eraseKind string

const (
	eraseMessages eraseKind = "messages"
	eraseThread   eraseKind = "thread"
	eraseResource eraseKind = "resource"
)

// erasedMsg is a message about to be erased.
type erasedMsg struct {
	id, thread, resource, content string
	seq                           int64
	role, toolCalls               string // toolCalls: the stored JSON, "" when none
	createdAt                     int64  // Unix ms
}

// DeleteMessages erases messages by id: their rows (and full tool results),
// their lexical and vector index entries and stored embeddings; it
// invalidates every observation whose range reaches a deleted turn, the
// reflections built on those and the thread's memo entries; it scrubs the
// previews of the deleted turns in past memctx records (the references stay,
// so Replay reports them as erased). Seqs are never reused: an erased seq
// leaves a tombstone.
//
// When DeleteMessages returns nil, the erased text is in no file of the data
// directory: SQLite runs with secure_delete and its WAL is checkpointed and
// truncated (and the file is vacuumed when a stale copy of an erased text
// remains, see completeErasures), the bleve segments are merged
// (recall.Lexical.Purge), and quarantined index copies are removed. A crash after the transaction
// commits leaves a marker that Open completes.
//
// Ids that are not stored are reported in NotFound. Errors: a
// *ValidationError for an invalid id; ErrEraseIncomplete (the data is
// logically gone, the physical purge is retried on the next erasure or
// Open).
func (e *Engine) DeleteMessages(ctx context.Context, ids ...string) (*EraseResult, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, invalid(-1, "ids", "at least one message id is required")
	}
	for i, id := range ids {
		if !ValidID(id) {
			return nil, invalid(-1, fmt.Sprintf("ids[%d]", i), idRule)
		}
	}
	return e.erase(ctx, eraseMessages, ids)
}

// DeleteThread erases a thread and everything derived from it: as
// DeleteMessages for each of its messages, plus the thread row, its
// tombstones, its observations (invalidated and scrubbed), its working
// memory (scope thread), and its runs: their memctx records and tool
// applications (an erased thread leaves no run listing). The thread id may
// be used again afterwards; it starts a new thread, which sees nothing of
// the old one: where a record is kept (its runs' owners, its observation
// rows) the thread id and its turns' message ids are replaced by opaque
// tombstones (TombstonePrefix, tombstone.go), and the runs stay claimed by
// the tombstone.
//
// It returns ErrThreadNotFound when the thread does not exist.
func (e *Engine) DeleteThread(ctx context.Context, threadID string) (*EraseResult, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if !ValidID(threadID) {
		return nil, invalid(-1, "threadId", idRule)
	}
	return e.erase(ctx, eraseThread, []string{threadID})
}

// DeleteResource erases every thread of a resource (see DeleteThread) and
// every working-memory state the resource owns (both scopes). The resource
// id, often an e-mail address, is replaced by an opaque tombstone wherever
// a record is kept (memctx records, run owners, observation rows), so once
// DeleteResource returns the id is in no file of the data directory. A
// resource with nothing stored is not an error: the result is empty.
func (e *Engine) DeleteResource(ctx context.Context, resourceID string) (*EraseResult, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if !ValidID(resourceID) {
		return nil, invalid(-1, "resourceId", idRule)
	}
	return e.erase(ctx, eraseResource, []string{resourceID})
}

// eraseState orders erasures against the work that reads turns and later
// records something derived from them (fence.go).
type eraseState struct {
	fence fence
}

// erase runs the erasure transaction, then the physical purge.
func (e *Engine) erase(ctx context.Context, kind eraseKind, targets []string) (*EraseResult, error) {
	return e.eraseWith(ctx, kind, targets, eraseOpts{})
}

// eraseWith is erase with the lifecycle's options (lifecycle.go): a guard
// in the transaction and the reason of the published event.
func (e *Engine) eraseWith(ctx context.Context, kind eraseKind, targets []string, opts eraseOpts) (*EraseResult, error) {
	res, err := e.eraseFenced(ctx, kind, targets, opts.guard)
	if err != nil {
		return nil, err
	}
	e.kickOutbox()
	start := time.Now()
	perr := e.completeErasures(ctx, res.marker, res.texts)
	res.Purge = time.Since(start)
	detail := fmt.Sprintf("%s erased: %d messages, %d threads; purge %s", kind, len(res.Messages), len(res.Threads), res.Purge.Round(time.Millisecond))
	if perr != nil {
		detail += "; purge incomplete: " + perr.Error()
	}
	ev := Event{Reason: EventErased, IDs: res.Messages, Count: len(res.Messages), Detail: detail}
	switch kind {
	case eraseThread:
		ev.ThreadID = targets[0]
	case eraseResource:
		ev.ResourceID = targets[0]
	}
	if opts.reason != "" {
		ev.Reason, ev.ResourceID = opts.reason, opts.resource
	}
	e.publish(ev)
	if len(res.Invalidated) > 0 {
		e.publish(Event{Reason: EventInvalidated, IDs: res.Invalidated, Count: len(res.Invalidated), ThreadID: ev.ThreadID, ResourceID: ev.ResourceID,
			Detail: "observations derived from erased turns"})
	}
	return res, perr
}

// eraseTx does every SQLite part of an erasure in tx, and writes the
// marker that makes the physical purge complete after a crash.
func (e *Engine) eraseTx(ctx context.Context, tx *sql.Tx, kind eraseKind, targets []string, marker string) (*EraseResult, error) {
	now := e.now().UTC()
	res := &EraseResult{}
	var msgs []erasedMsg
	var threads []string // deleted threads
	var resources []string
	var err error
	switch kind {
	case eraseMessages:
		seen := map[string]bool{}
		for start := 0; start < len(targets) && err == nil; start += 500 {
			chunk := targets[start:min(start+500, len(targets))]
			var part []erasedMsg
			part, err = selectErased(ctx, tx, `id IN (?`+strings.Repeat(",?", len(chunk)-1)+`)`, anys(chunk)...)
			for _, m := range part {
				if !seen[m.id] {
					seen[m.id] = true
					msgs = append(msgs, m)
				}
			}
		}
		stored := map[string]bool{}
		for _, m := range msgs {
			stored[m.id] = true
		}
		for _, id := range targets {
			if !stored[id] {
				stored[id] = true // report a repeated id once
				res.NotFound = append(res.NotFound, id)
			}
		}
	case eraseThread:
		var rid string
		err = tx.QueryRowContext(ctx, `SELECT resource_id FROM threads WHERE id = ?`, targets[0]).Scan(&rid)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("%w: %s", ErrThreadNotFound, targets[0])
		}
		if err != nil {
			return nil, fmt.Errorf("engine: erase: read thread: %w", err)
		}
		threads, resources = targets, []string{rid}
		msgs, err = selectErased(ctx, tx, `thread_id = ?`, targets[0])
	case eraseResource:
		resources = targets
		threads, err = selectStrings(ctx, tx, `SELECT id FROM threads WHERE resource_id = ? ORDER BY id`, targets[0])
		if err == nil {
			msgs, err = selectErased(ctx, tx, `resource_id = ?`, targets[0])
		}
	}
	if err != nil {
		return nil, err
	}
	erased := make(map[string]erasedMsg, len(msgs))
	for _, m := range msgs {
		erased[m.id] = m
		res.Messages = append(res.Messages, m.id)
		res.texts = append(res.texts, m.content)
		if kind == eraseMessages && !contains(resources, m.resource) {
			resources = append(resources, m.resource)
		}
	}

	// Rows, full results, embeddings; the outbox gets one delete per
	// message.
	ids := res.Messages
	for start := 0; start < len(ids); start += 500 {
		chunk := anys(ids[start:min(start+500, len(ids))])
		in := `(?` + strings.Repeat(",?", len(chunk)-1) + `)`
		r, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE message_id IN `+in, chunk...)
		if err != nil {
			return nil, fmt.Errorf("engine: erase embeddings: %w", err)
		}
		n, _ := r.RowsAffected()
		res.Embeddings += int(n)
		// Pending outbox rows of these messages stay: the drainer may hold
		// them, and deleting them would let SQLite reuse their rowids for
		// the delete rows below, which the drainer would then clear as done.
		// An index row of an erased message finds no message and is a no-op.
		// A dispatch goes with its call's or its result's message (dispatch.go).
		if _, err := tx.ExecContext(ctx, `DELETE FROM dispatches WHERE message_id IN `+in+` OR result_id IN `+in, append(chunk, chunk...)...); err != nil {
			return nil, fmt.Errorf("engine: erase dispatches: %w", err)
		}
		for _, q := range []string{`DELETE FROM message_blobs WHERE message_id IN `, `DELETE FROM messages WHERE id IN `} {
			if _, err := tx.ExecContext(ctx, q+in, chunk...); err != nil {
				return nil, fmt.Errorf("engine: erase messages: %w", err)
			}
		}
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES (?, ?, ?, ?)`,
			opDel, id, erased[id].resource, now.UnixMilli()); err != nil {
			return nil, fmt.Errorf("engine: erase: queue index removal: %w", err)
		}
	}

	// Threads: deleted ones go whole; others keep counters and tombstones.
	minSeq := map[string]int64{}
	perThread := map[string]int{}
	for _, m := range msgs {
		if s, ok := minSeq[m.thread]; !ok || m.seq < s {
			minSeq[m.thread] = m.seq
		}
		perThread[m.thread]++
	}
	deleted := map[string]bool{}
	for _, t := range threads {
		deleted[t] = true
		minSeq[t] = 1
	}
	for t, n := range perThread {
		if deleted[t] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE threads SET message_count = message_count - ?, bytes = `+threadBytesSQL+` WHERE id = ?`, n, t, t); err != nil {
			return nil, fmt.Errorf("engine: erase: update thread %s: %w", t, err)
		}
	}
	for _, m := range msgs {
		if deleted[m.thread] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO journal (scope, key, thread_id, resource_id, output, created_at) VALUES (?, ?, ?, ?, x'', ?)`,
			ScopeErased, m.thread+":"+strconv.FormatInt(m.seq, 10), m.thread, m.resource, now.UnixMilli()); err != nil {
			return nil, fmt.Errorf("engine: erase: tombstone: %w", err)
		}
	}

	// Observations, reflections and memo entries of every touched thread.
	touched := make([]string, 0, len(minSeq))
	for t := range minSeq {
		touched = append(touched, t)
	}
	sort.Strings(touched)
	for _, t := range touched {
		inv, err := observe.Invalidate(ctx, tx, t, minSeq[t], now)
		if err != nil {
			return nil, fmt.Errorf("engine: erase: %w", err)
		}
		res.Invalidated = append(res.Invalidated, inv...)
	}
	sort.Strings(res.Invalidated)

	// Working memory written by runs that saw an erased turn (wmerase.go),
	// before the memctx records that tell it are scrubbed.
	skip := ""
	if kind == eraseResource {
		skip = targets[0] // its working memory goes whole below
	}
	if res.WorkingMemoryInvalidated, err = e.rebuildWorkingMemory(ctx, tx, resources, skip, deleted, erased, res.Invalidated, now); err != nil {
		return nil, err
	}

	// memctx previews (and queries quoting an erased turn).
	n, runsOfDeleted, err := scrubMemCtx(ctx, tx, resources, erased, deleted)
	if err != nil {
		return nil, err
	}
	res.MemCtxScrubbed = n

	// Deleted threads: the row, tombstones, working memory, tool
	// applications of their runs.
	for _, t := range threads {
		for _, q := range []string{
			`DELETE FROM threads WHERE id = ?`,
			`DELETE FROM dispatches WHERE thread_id = ?`,
			`DELETE FROM journal WHERE scope = '` + ScopeErased + `' AND thread_id = ?`,
			`DELETE FROM journal WHERE scope = '` + journal.ScopeTool + `' AND thread_id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, t); err != nil {
				return nil, fmt.Errorf("engine: erase thread %s: %w", t, err)
			}
		}
		k, err := deleteWorkingMemory(ctx, tx, "thread:"+t)
		if err != nil {
			return nil, err
		}
		res.WorkingMemory += k
	}
	res.Threads = threads
	for _, run := range runsOfDeleted {
		prefix := run + ":"
		if _, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND substr(key, 1, ?) = ?`, journal.ScopeTool, len(prefix), prefix); err != nil {
			return nil, fmt.Errorf("engine: erase: tool applications of run %s: %w", run, err)
		}
	}
	// A deleted thread leaves no run listing: its runs' memctx records go
	// (their ids stay claimed by a tombstone, tombstone.go).
	for _, t := range threads {
		r, err := tx.ExecContext(ctx, `DELETE FROM journal WHERE scope = ? AND thread_id = ?`, journal.ScopeMemCtx, t)
		if err != nil {
			return nil, fmt.Errorf("engine: erase: runs of thread %s: %w", t, err)
		}
		n, _ := r.RowsAffected()
		res.Runs += int(n)
	}
	if kind == eraseResource {
		k, err := deleteWorkingMemory(ctx, tx, "resource:"+targets[0])
		if err != nil {
			return nil, err
		}
		res.WorkingMemory += k
		// Every state the resource owns, whatever its key (states are bound
		// to their owner when written, working.Config.OwnerOf).
		for _, q := range []string{`DELETE FROM working_memory WHERE resource_id = ?`, `DELETE FROM working_memory_history WHERE resource_id = ?`} {
			r, err := tx.ExecContext(ctx, q, targets[0])
			if err != nil {
				return nil, fmt.Errorf("engine: erase working memory of the resource: %w", err)
			}
			n, _ := r.RowsAffected()
			res.WorkingMemory += int(n)
		}
	}

	// Erased owners leave only opaque tombstones (tombstone.go); the
	// residue check looks for their ids too.
	erasedResource := ""
	if kind == eraseResource {
		erasedResource = targets[0]
		res.texts = append(res.texts, erasedResource)
	}
	if err := entombOwners(ctx, tx, threads, erasedResource); err != nil {
		return nil, err
	}
	res.texts = append(res.texts, threads...)

	for _, m := range msgs {
		res.keys = append(res.keys, threadKey(m.thread), resourceKey(m.resource))
	}
	for _, t := range threads {
		res.keys = append(res.keys, threadKey(t))
	}
	for _, r := range resources {
		res.keys = append(res.keys, resourceKey(r))
	}

	// The marker: its existence after commit means "purge owed".
	info, _ := json.Marshal(map[string]any{"kind": kind, "messages": len(msgs), "threads": len(threads)})
	if _, err := tx.ExecContext(ctx, `INSERT INTO journal (scope, key, output, created_at) VALUES (?, ?, ?, ?)`,
		ScopeErasing, marker, info, now.UnixMilli()); err != nil {
		return nil, fmt.Errorf("engine: erase: marker: %w", err)
	}
	return res, nil
}

func selectErased(ctx context.Context, tx *sql.Tx, where string, args ...any) ([]erasedMsg, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, thread_id, resource_id, seq, content, role, COALESCE(tool_calls, ''), created_at
		FROM messages WHERE `+where+` ORDER BY thread_id, seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("engine: erase: select messages: %w", err)
	}
	defer rows.Close()
	var out []erasedMsg
	for rows.Next() {
		var m erasedMsg
		if err := rows.Scan(&m.id, &m.thread, &m.resource, &m.seq, &m.content, &m.role, &m.toolCalls, &m.createdAt); err != nil {
			return nil, fmt.Errorf("engine: erase: select messages: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func selectStrings(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("engine: erase: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("engine: erase: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// deleteWorkingMemory deletes a working-memory state and its history.
func deleteWorkingMemory(ctx context.Context, tx *sql.Tx, scope string) (int, error) {
	total := 0
	for _, q := range []string{`DELETE FROM working_memory WHERE scope = ?`, `DELETE FROM working_memory_history WHERE scope = ?`} {
		r, err := tx.ExecContext(ctx, q, scope)
		if err != nil {
			return 0, fmt.Errorf("engine: erase working memory %s: %w", scope, err)
		}
		n, _ := r.RowsAffected()
		total += int(n)
	}
	return total, nil
}

// scrubMemCtx rewrites the memctx records of resources: every reference to
// an erased message keeps its thread, seq, id and role but gets
// ErasedPreview; a query that quotes an erased turn (or is quoted by one)
// is replaced too. It returns how many records changed and the run ids of
// the records of deleted threads.
func scrubMemCtx(ctx context.Context, tx *sql.Tx, resources []string, erased map[string]erasedMsg, deleted map[string]bool) (int, []string, error) {
	changed := 0
	var runs []string
	for _, r := range resources {
		rows, err := tx.QueryContext(ctx, `SELECT key, thread_id, output FROM journal WHERE scope = ? AND resource_id = ?`, journal.ScopeMemCtx, r)
		if err != nil {
			return 0, nil, fmt.Errorf("engine: erase: read memctx records: %w", err)
		}
		type upd struct {
			key string
			out []byte
		}
		var updates []upd
		for rows.Next() {
			var key, thread string
			var out []byte
			if err := rows.Scan(&key, &thread, &out); err != nil {
				rows.Close()
				return 0, nil, fmt.Errorf("engine: erase: read memctx records: %w", err)
			}
			var rec journal.MemCtx
			if err := json.Unmarshal(out, &rec); err != nil {
				// Unreadable (corrupt): it cannot be scrubbed, so it goes
				// when it quotes an erased turn or names one.
				if quotesErased(out, erased) {
					updates = append(updates, upd{key, nil})
				}
				continue
			}
			if deleted[thread] {
				runs = append(runs, rec.RunID)
			}
			if scrubRecord(&rec, erased) {
				b, err := json.Marshal(&rec)
				if err != nil {
					rows.Close()
					return 0, nil, fmt.Errorf("engine: erase: encode memctx %s: %w", key, err)
				}
				updates = append(updates, upd{key, b})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, nil, fmt.Errorf("engine: erase: read memctx records: %w", err)
		}
		for _, u := range updates {
			q, args := `UPDATE journal SET output = ? WHERE scope = ? AND key = ?`, []any{u.out, journal.ScopeMemCtx, u.key}
			if u.out == nil {
				q, args = `DELETE FROM journal WHERE scope = ? AND key = ?`, args[1:]
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return 0, nil, fmt.Errorf("engine: erase: scrub memctx %s: %w", u.key, err)
			}
			changed++
		}
	}
	return changed, runs, nil
}

// quotesErased reports whether raw bytes hold an erased message's id or
// content.
func quotesErased(raw []byte, erased map[string]erasedMsg) bool {
	for _, m := range erased {
		if bytes.Contains(raw, []byte(m.id)) || (strings.TrimSpace(m.content) != "" && bytes.Contains(raw, []byte(m.content))) {
			return true
		}
	}
	return false
}

// scrubRecord scrubs rec in place and reports whether anything changed.
func scrubRecord(rec *journal.MemCtx, erased map[string]erasedMsg) bool {
	changed := false
	for _, list := range [][]journal.Ref{rec.Recalled, rec.Recent, rec.Dropped} {
		for i := range list {
			if _, ok := erased[list[i].MessageID]; ok && list[i].Preview != ErasedPreview {
				list[i].Preview = ErasedPreview
				changed = true
			}
		}
	}
	if q := strings.TrimSpace(rec.Query); q != "" && q != ErasedPreview {
		for _, m := range erased {
			c := strings.TrimSpace(m.content)
			if c != "" && (strings.Contains(c, q) || strings.Contains(q, c)) {
				rec.Query = ErasedPreview
				changed = true
				break
			}
		}
	}
	return changed
}

// completeErasures does the physical part of erasures whose transaction
// committed: index removal (the outbox delete rows), the bleve merge, the
// removal of quarantined index copies, and a truncating WAL checkpoint; then
// it deletes the markers (only marker, or every marker when marker is "").
//
// SQLite's secure_delete zeroes deleted cells, but a copy of a cell that a
// b-tree rebalance moved earlier can survive in a page's free space (the
// crash harness found one in about 1,500 kill points). So the database file
// is then searched for the erased texts (texts; after a crash they are no
// longer known, and Open vacuums unconditionally) and rewritten with VACUUM
// when any remains.
func (e *Engine) completeErasures(ctx context.Context, marker string, texts []string) error {
	if err := e.drainDeletes(ctx); err != nil {
		return fmt.Errorf("%w: index removal: %w", ErrEraseIncomplete, err)
	}
	var pending int64
	if err := e.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE op = ?`, opDel).Scan(&pending); err != nil {
		return fmt.Errorf("%w: %w", ErrEraseIncomplete, err)
	}
	if pending > 0 {
		return fmt.Errorf("%w: %d index removals deferred after failures", ErrEraseIncomplete, pending)
	}
	e.idx.drainMu.Lock()
	ix := e.idx.index()
	var err error
	if ix != nil {
		err = ix.Lexical().Purge(ctx)
	}
	if isDamage(err) {
		// The damaged directory goes to quarantine, removed below; the
		// rebuild from SQLite holds nothing erased (lexical_damage.go).
		_, err = e.recoverDamagedIndex(ctx)
	}
	e.idx.drainMu.Unlock()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrEraseIncomplete, err)
	}
	if err := os.RemoveAll(filepath.Join(e.dir, QuarantineDir)); err != nil {
		return fmt.Errorf("%w: remove quarantined indexes: %w", ErrEraseIncomplete, err)
	}
	if err := e.checkpoint(ctx); err != nil {
		return err
	}
	if err := e.vacuumResidue(ctx, marker == "", texts); err != nil {
		return err
	}
	q, args := `DELETE FROM journal WHERE scope = ?`, []any{ScopeErasing}
	if marker != "" {
		q, args = q+` AND key = ?`, append(args, marker)
	}
	if _, err := e.db.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("%w: clear marker: %w", ErrEraseIncomplete, err)
	}
	return e.checkpoint(ctx)
}

// drainDeletes applies the outbox's delete rows queued before the call,
// ahead of the index rows before them (an index row of an erased message is
// a no-op whenever it runs; one the drainer already holds finishes before
// drainMu is ours, and its document is removed here). It does not wait for
// the backlog of index rows that concurrent appends keep adding, so an
// erasure under load finishes.
func (e *Engine) drainDeletes(ctx context.Context) error {
	var last sql.NullInt64
	if err := e.db.QueryRowContext(ctx, `SELECT MAX(id) FROM outbox WHERE op = ?`, opDel).Scan(&last); err != nil {
		return err
	}
	if !last.Valid {
		return nil
	}
	for {
		e.idx.drainMu.Lock()
		err := e.recoverIfDamaged(ctx) // lexical_damage.go
		var rows []outboxRow
		if err == nil {
			rows, err = e.dueDeletes(ctx, last.Int64)
		}
		if err == nil && len(rows) > 0 {
			err = e.applyOutbox(ctx, rows)
		}
		e.idx.drainMu.Unlock()
		if err != nil || len(rows) == 0 {
			return err
		}
	}
}

func (e *Engine) dueDeletes(ctx context.Context, last int64) ([]outboxRow, error) {
	rs, err := e.db.QueryContext(ctx, `SELECT id, op, message_id, resource_id, attempts FROM outbox
		WHERE op = ? AND id <= ? AND not_before <= ? ORDER BY id LIMIT ?`, opDel, last, time.Now().UnixMilli(), outboxBatch)
	if err != nil {
		return nil, fmt.Errorf("engine: read outbox: %w", err)
	}
	defer rs.Close()
	var out []outboxRow
	for rs.Next() {
		var r outboxRow
		if err := rs.Scan(&r.id, &r.op, &r.message, &r.resource, &r.attempts); err != nil {
			return nil, fmt.Errorf("engine: read outbox: %w", err)
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// residuePrefix is how much of an erased text the residue check looks
// for; texts shorter than residueMin are not searched (too common to tell
// residue from other data).
const (
	residuePrefix = 64
	residueMin    = 12
)

// vacuumResidue rewrites the database with VACUUM when always is set or
// when the file still holds the start of one of texts, then checkpoints.
func (e *Engine) vacuumResidue(ctx context.Context, always bool, texts []string) error {
	if !always {
		var pats [][]byte
		for _, t := range texts {
			if len(t) >= residueMin {
				pats = append(pats, []byte(t[:min(len(t), residuePrefix)]))
			}
		}
		found, err := fileHolds(filepath.Join(e.dir, DatabaseFile), pats)
		if err != nil {
			return fmt.Errorf("%w: residue check: %w", ErrEraseIncomplete, err)
		}
		if !found {
			return nil
		}
		e.log.Warn("erased text left in free space of the database file; vacuuming")
	}
	if _, err := e.db.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("%w: vacuum: %w", ErrEraseIncomplete, err)
	}
	return e.checkpoint(ctx)
}

// fileHolds reports whether the file at path contains any of pats,
// reading it in 1 MiB chunks that overlap by the longest pattern.
func fileHolds(path string, pats [][]byte) (bool, error) {
	if len(pats) == 0 {
		return false, nil
	}
	long := 0
	for _, p := range pats {
		long = max(long, len(p))
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20+long)
	keep := 0
	for {
		n, err := io.ReadFull(f, buf[keep:])
		chunk := buf[:keep+n]
		for _, p := range pats {
			if bytes.Contains(chunk, p) {
				return true, nil
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		keep = min(long-1, len(chunk))
		copy(buf, chunk[len(chunk)-keep:])
	}
}

// checkpoint copies the WAL into the database file and truncates it, so
// page images written before an erasure leave the WAL. A reader holding an
// old snapshot makes SQLite report busy; it is retried for up to 10 s.
func (e *Engine) checkpoint(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var busy, logFrames, done int
		err := e.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
		if err != nil {
			return fmt.Errorf("%w: WAL checkpoint: %w", ErrEraseIncomplete, err)
		}
		if busy == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: WAL checkpoint still blocked by readers (%d of %d frames copied)", ErrEraseIncomplete, done, logFrames)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrEraseIncomplete, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// resumeErasures completes, at Open, the erasures a crash interrupted
// after their transaction committed.
func (e *Engine) resumeErasures(ctx context.Context) error {
	var n int
	if err := e.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM journal WHERE scope = ?`, ScopeErasing).Scan(&n); err != nil {
		return fmt.Errorf("engine: read erasure markers: %w", err)
	}
	if n == 0 {
		return nil
	}
	e.log.Warn("completing interrupted erasures", "n", n)
	if err := e.completeErasures(ctx, "", nil); err != nil {
		return fmt.Errorf("engine: complete interrupted erasures: %w", err)
	}
	e.publish(Event{Reason: EventEraseResumed, Count: n, Detail: "erasures interrupted by a crash were completed at open"})
	return nil
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
