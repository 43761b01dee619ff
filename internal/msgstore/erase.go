package msgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// Erasure's half of the message store: the statements an erasure runs on
// threads, messages, message_blobs, embeddings and the outbox, inside the
// erasing caller's transaction (the engine's erasure), and the outbox reads
// of its physical purge. The engine decides what is erased.

// ErasedPrefix is how much of each erased message's content the erasure
// readers (ErasedByID, ErasedOfThread, ErasedOfResource) return, in bytes:
// Message.Content holds the first ErasedPrefix bytes (what the engine's
// residue check looks for), never the whole text. An erasure that needs
// the texts reads them with ErasedTexts, a page at a time, while their
// rows still exist; so erasing a resource of a million messages does not
// hold a million texts until it commits.
const ErasedPrefix = 64

// erasedColumns are the columns erased reads, in order: the content cut
// to ErasedPrefix characters (at least ErasedPrefix bytes; erased cuts it
// to bytes), the tool calls whole (erased keeps their ids), the metadata
// cut as the content.
const erasedColumns = `id, thread_id, resource_id, seq, substr(content, 1, 64), role, COALESCE(tool_calls, ''), tool_call_id, substr(metadata, 1, 64), created_at`

// erased reads, in tx, the messages where selects (a condition on messages
// with args), in thread and seq order (thread ids in byte order on both
// backends: EraseResult lists them so). Each Message holds ID, ThreadID,
// ResourceID, Seq, Role, ToolCallID, CreatedAt, Content cut to its first
// ErasedPrefix bytes (of the content as stored: the bounded summary of a
// truncated one; a cut may end inside a UTF-8 sequence), ToolCalls with
// each call's id only (`[{"id":"call_1"}]`, "" when none or unreadable),
// CallArgs, and Metadata cut to its first ErasedPrefix bytes as stored
// (the JSON text, escapes included: the bytes a copy of the row holds);
// the other fields are zero.
func erased(ctx context.Context, q store.Conn, where string, args ...any) ([]Message, error) {
	order := store.DialectOfConn(q).Text(` ORDER BY thread_id, seq`, ` ORDER BY thread_id COLLATE "C", seq`)
	rows, err := q.QueryContext(ctx, `SELECT `+erasedColumns+` FROM messages WHERE `+where+order, args...)
	if err != nil {
		return nil, fmt.Errorf("erase: select messages: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var created int64
		if err := rows.Scan(&m.ID, &m.ThreadID, &m.ResourceID, &m.Seq, &m.Content, &m.Role, &m.ToolCalls, &m.ToolCallID, &m.Metadata, &created); err != nil {
			return nil, fmt.Errorf("erase: select messages: %w", err)
		}
		m.Content = strings.Clone(m.Content[:min(len(m.Content), ErasedPrefix)])
		m.Metadata = strings.Clone(m.Metadata[:min(len(m.Metadata), ErasedPrefix)])
		m.ToolCalls, m.CallArgs = splitCalls(m.ToolCalls)
		m.CreatedAt = unixMilli(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// splitCalls returns the tool_calls column calls with each call's id
// only, `[{"id":"call_1"}]`, and the first ErasedPrefix bytes of each
// call's arguments as calls holds them (the JSON text, escapes included:
// the bytes a copy of the row holds), in call order; "" and nil when calls
// is empty or unreadable (no call).
func splitCalls(calls string) (string, []string) {
	if calls == "" {
		return "", nil
	}
	var parsed []struct {
		ID        string          `json:"id"`
		Arguments json.RawMessage `json:"arguments"` // the bytes as in calls (Unmarshal copies them)
	}
	if json.Unmarshal([]byte(calls), &parsed) != nil || len(parsed) == 0 {
		return "", nil
	}
	ids := make([]struct {
		ID string `json:"id"`
	}, len(parsed))
	var args []string
	for i, c := range parsed {
		ids[i].ID = c.ID
		if len(c.Arguments) > 0 {
			args = append(args, string(c.Arguments[:min(len(c.Arguments), ErasedPrefix)]))
		}
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return "", nil
	}
	return string(b), args
}

// errStopTexts ends eachString's read when its fn returns false.
var errStopTexts = errors.New("msgstore: stop")

// eachString calls fn with the one string column of each row query (a
// statement ending "… IN ") reads on c for ids, store.ChunkSize ids at a
// time, in no set order. It returns errStopTexts when fn returns false,
// else the read's error or nil.
func eachString(ctx context.Context, c store.Conn, query string, ids []string, fn func(string) bool) error {
	return store.InChunks(ids, func(in string, args []any) error {
		rows, err := c.QueryContext(ctx, query+in, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				return err
			}
			if !fn(v) {
				return errStopTexts
			}
		}
		return rows.Err()
	})
}

// ErasedTexts calls fn, in tx, with the content (as stored: the bounded
// summary of a truncated message) of each stored message among ids,
// reading them store.ChunkSize at a time by id, in no set order; it stops
// when fn returns false. An erasure reads its texts so, before it deletes
// the rows, when a check needs them (the engine's scrub of memctx queries
// that quote an erased turn): at most one page of texts is alive at once.
// It returns the read's error, or nil.
func (s *Store) ErasedTexts(ctx context.Context, tx *store.Tx, ids []string, fn func(content string) bool) error {
	err := eachString(ctx, s.in(tx), `SELECT content FROM messages WHERE id IN `, ids, fn)
	if err == nil || errors.Is(err, errStopTexts) {
		return nil
	}
	return fmt.Errorf("erase: read erased texts: %w", err)
}

// ErasedByID reads, in tx, the stored messages among ids (any number; a
// repeated id is read once), in thread and seq order within each chunk of
// store.ChunkSize ids; see erased for the fields.
func (s *Store) ErasedByID(ctx context.Context, tx *store.Tx, ids []string) ([]Message, error) {
	var msgs []Message
	seen := map[string]bool{}
	err := store.InChunks(ids, func(in string, args []any) error {
		part, err := erased(ctx, s.in(tx), `id IN `+in, args...)
		for _, m := range part {
			if !seen[m.ID] {
				seen[m.ID] = true
				msgs = append(msgs, m)
			}
		}
		return err
	})
	if err != nil || !s.pg() {
		return msgs, err
	}
	threads := make([]string, len(msgs))
	for i, m := range msgs {
		threads[i] = m.ThreadID
	}
	return msgs, s.lockThreads(ctx, s.in(tx), threads...)
}

// ErasedOfThread reads, in tx, the owner of threadID and its messages (see
// erased for the fields). It returns ErrNotFound (wrapped) when the thread
// is not stored.
//
// On Postgres the readers of an erasure (ErasedByID, ErasedOfThread,
// ErasedOfResource) and its writes on threads (ShrinkThread, DeleteThread)
// first lock the threads concerned (lockThreads): an append to one of them
// from another process waits for the erasure to commit, so the erasure's
// counts and deletions see every message of the thread.
func (s *Store) ErasedOfThread(ctx context.Context, tx *store.Tx, threadID string) (string, []Message, error) {
	if err := s.lockThreads(ctx, s.in(tx), threadID); err != nil {
		return "", nil, fmt.Errorf("erase: %w", err)
	}
	var rid string
	err := s.in(tx).QueryRowContext(ctx, `SELECT resource_id FROM threads WHERE id = ?`, threadID).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("%w: thread %s", ErrNotFound, threadID)
	}
	if err != nil {
		return "", nil, fmt.Errorf("erase: read thread: %w", err)
	}
	msgs, err := erased(ctx, s.in(tx), `thread_id = ?`, threadID)
	return rid, msgs, err
}

// ErasedOfResource reads, in tx, the threads of resourceID (in id order,
// bytewise on both backends) and its messages (see erased for the fields).
func (s *Store) ErasedOfResource(ctx context.Context, tx *store.Tx, resourceID string) ([]string, []Message, error) {
	rows, err := s.in(tx).QueryContext(ctx, `SELECT id FROM threads WHERE resource_id = ?`+s.dialect.Text(` ORDER BY id`, ` ORDER BY id COLLATE "C"`), resourceID)
	if err != nil {
		return nil, nil, fmt.Errorf("erase: %w", err)
	}
	defer rows.Close()
	var threads []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, nil, fmt.Errorf("erase: %w", err)
		}
		threads = append(threads, t)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("erase: %w", err)
	}
	if !s.pg() {
		msgs, err := erased(ctx, s.in(tx), `resource_id = ?`, resourceID)
		return threads, msgs, err
	}
	// A thread created after the listing is not locked, nor erased: its
	// messages are not read either.
	if err := s.lockThreads(ctx, s.in(tx), threads...); err != nil {
		return nil, nil, fmt.Errorf("erase: %w", err)
	}
	msgs, err := erased(ctx, s.in(tx), `resource_id = ? AND thread_id = ANY(?::text[])`, resourceID, threads)
	return threads, msgs, err
}

// EraseMessages deletes, in tx, the rows of msgs (embeddings, full
// results, messages) and then queues one index removal per message in the
// outbox (recorded at now, under the message's resource). On Postgres no
// removal is queued: the lexical entries and their statistics go with the
// rows in tx (ON DELETE CASCADE and triggers). It returns how many
// embeddings it deleted.
//
// Pending index and embed rows of these messages stay (the drainer may
// hold them, and deleting them would let SQLite reuse their rowids for
// the delete rows, which the drainer would then clear as done), but leave
// their resource (NoResource): an index row of an erased message finds no
// message and is a no-op, so no resource's status counts it.
func (s *Store) EraseMessages(ctx context.Context, tx *store.Tx, msgs []Message, now time.Time) (int, error) {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	embeddings := 0
	err := store.InChunks(ids, func(in string, chunk []any) error {
		r, err := s.in(tx).ExecContext(ctx, `DELETE FROM embeddings WHERE message_id IN `+in, chunk...)
		if err != nil {
			return fmt.Errorf("erase embeddings: %w", err)
		}
		n, _ := r.RowsAffected()
		embeddings += int(n)
		for _, q := range []string{`DELETE FROM message_blobs WHERE message_id IN `, `DELETE FROM messages WHERE id IN `} {
			if _, err := s.in(tx).ExecContext(ctx, q+in, chunk...); err != nil {
				return fmt.Errorf("erase messages: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := s.unqueue(ctx, tx, msgs); err != nil {
		return 0, err
	}
	if s.pg() {
		return embeddings, nil // Postgres's indexes went with the rows (cascade): nothing to remove
	}
	for _, m := range msgs {
		if _, err := s.in(tx).ExecContext(ctx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES (?, ?, ?, ?)`,
			OpDelete, m.ID, m.ResourceID, now.UnixMilli()); err != nil {
			return 0, fmt.Errorf("erase: queue index removal: %w", err)
		}
	}
	return embeddings, nil
}

// NoResource is the resource_id of an outbox row that no resource's status
// counts: the pending index and embed rows of erased messages
// (EraseMessages). The drainer still takes them, as no-ops (or as an
// indexing of a message stored again under the id since, which its own
// row queues too). No resource has the empty id.
const NoResource = ""

// unqueue moves the pending index and embed rows of msgs out of their
// resource (NoResource), in tx: one indexed statement (outbox_by_resource)
// per resource and chunk. Until then a search counted such a row as a
// message not indexed yet (PendingIndex, Pending) until the drainer took
// it, which after a failed attempt is its retry; Pending dropped it only
// while the erasure's delete row was queued.
func (s *Store) unqueue(ctx context.Context, tx *store.Tx, msgs []Message) error {
	byResource := map[string][]string{}
	for _, m := range msgs {
		byResource[m.ResourceID] = append(byResource[m.ResourceID], m.ID)
	}
	for _, r := range slices.Sorted(maps.Keys(byResource)) {
		err := store.InChunks(byResource[r], func(in string, args []any) error {
			_, err := s.in(tx).ExecContext(ctx, `UPDATE outbox SET resource_id = ? WHERE resource_id = ? AND op IN ('`+OpIndex+`', '`+OpEmbed+`') AND message_id IN `+in,
				append([]any{NoResource, r}, args...)...)
			return err
		})
		if err != nil {
			return fmt.Errorf("erase: unqueue index rows: %w", err)
		}
	}
	return nil
}

// ShrinkThread takes n erased messages off threadID's message count in tx
// and recomputes its bytes from what is stored (ThreadBytesOf) and its
// updated_at: the newest kept message's time, the thread's created_at when
// none is kept, so an erased newest message's time is not kept either (it
// was listed as the thread's last message).
func (s *Store) ShrinkThread(ctx context.Context, tx *store.Tx, threadID string, n int) error {
	if err := s.lockThreads(ctx, s.in(tx), threadID); err != nil {
		return fmt.Errorf("erase: %w", err)
	}
	const newest = `updated_at = COALESCE((SELECT MAX(m.created_at) FROM messages m WHERE m.thread_id = threads.id), created_at)`
	if _, err := s.in(tx).ExecContext(ctx, s.dialect.Text(`UPDATE threads SET message_count = message_count - ?, bytes = `+threadBytesSQL+`, `+newest+` WHERE id = ?`,
		`UPDATE threads SET message_count = message_count - ?, bytes = `+pgThreadBytesOf("?")+`, `+newest+` WHERE id = ?`), n, threadID, threadID); err != nil {
		return fmt.Errorf("erase: update thread %s: %w", threadID, err)
	}
	return nil
}

// DeleteThread deletes threadID's row in tx (its messages are erased
// first, EraseMessages).
func (s *Store) DeleteThread(ctx context.Context, tx *store.Tx, threadID string) error {
	if err := s.lockThreads(ctx, s.in(tx), threadID); err != nil {
		return fmt.Errorf("erase: %w", err)
	}
	if _, err := s.in(tx).ExecContext(ctx, `DELETE FROM threads WHERE id = ?`, threadID); err != nil {
		return fmt.Errorf("erase thread %s: %w", threadID, err)
	}
	return nil
}

// EntombOutbox replaces, in tx, the erased resource with its tombstone in
// the pending index rows of the outbox that still name it (the erased
// messages' rows left it already, EraseMessages). Index rows of erased
// messages are no-ops whenever they run; their resource only picked a
// vector collection. Delete rows keep it until the purge applies and
// removes them.
func (s *Store) EntombOutbox(ctx context.Context, tx *store.Tx, resourceID, tomb string) error {
	q := `UPDATE outbox SET resource_id = ?2 WHERE resource_id = ?1 AND op <> '` + OpDelete + `'`
	if _, err := s.in(tx).ExecContext(ctx, q, resourceID, tomb); err != nil {
		return fmt.Errorf("erase: tombstone resource owner: %w", err)
	}
	return nil
}

// CallQuery asks whether a kept assistant message made a tool call.
type CallQuery struct {
	ThreadID string
	CallID   string // the tool call id
	// BeforeSeq: only messages before this seq count.
	BeforeSeq int64
	// AfterSeq: only messages after this seq count.
	AfterSeq int64
	// SinceMS, when not nil, counts only messages stored at or after this
	// time (Unix ms).
	SinceMS *int64
}

// CountCalls counts, in tx, the assistant messages that q selects whose
// tool calls include q.CallID. It reads message_calls (one range of its
// key; with q.SinceMS each message's row for its time), as ToolCall and
// OpenCall do, so a message whose tool_calls is not a JSON array (a row an
// import or a hand-made fix wrote; the engine never does) makes no call on
// both backends, as the triggers keeping message_calls read it: walking
// the column itself (json_each, a jsonb cast) failed the count on such a
// row, and with it the append, settlement or erasure that asked
// (TestCountCallsNotJSON).
func (s *Store) CountCalls(ctx context.Context, tx *store.Tx, q CallQuery) (int, error) {
	query, args := `SELECT COUNT(*) FROM message_calls c WHERE c.thread_id = ? AND c.call_id = ? AND c.seq < ? AND c.seq > ?`,
		[]any{q.ThreadID, q.CallID, q.BeforeSeq, q.AfterSeq}
	if q.SinceMS != nil {
		query += ` AND EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = c.thread_id AND m.seq = c.seq AND m.created_at >= ?)`
		args = append(args, *q.SinceMS)
	}
	var n int
	if err := s.in(tx).QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("read tool calls of thread %s: %w", q.ThreadID, err)
	}
	return n, nil
}

// OutboxRow is one row of the outbox, as stored.
type OutboxRow struct {
	ID        int64
	Op        string // OpIndex, OpEmbed or OpDelete
	MessageID string
	Resource  string
	Attempts  int
}

// PendingDeletes counts the outbox's index removals (delete rows) with ids
// up to last (LastDelete's): the removals owed.
func (s *Store) PendingDeletes(ctx context.Context, last int64) (int64, error) {
	var pending int64
	err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE op = ? AND id <= ?`, OpDelete, last).Scan(&pending)
	return pending, err
}

// DeferredDeletes counts the outbox's index removals (delete rows) with
// ids up to last (LastDelete's, read before draining them) that failed at
// least once (attempts above 0: deferred, due again after a backoff). A
// drain of the rows up to last that read no due row leaves only such rows
// of its own; the others it finds are rows an erasure committed since
// then, which that erasure applies and checks: SQLite gives a new row the
// id one above the largest stored (the outbox's ids are rowids, with no
// AUTOINCREMENT), so once a drain deleted the newest rows, a later
// erasure's rows take their ids again, at or below last.
func (s *Store) DeferredDeletes(ctx context.Context, last int64) (int64, error) {
	var n int64
	err := s.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE op = ? AND id <= ? AND attempts > 0`, OpDelete, last).Scan(&n)
	return n, err
}

// LastDelete is the id of the outbox's newest delete row; ok is false when
// there is none.
func (s *Store) LastDelete(ctx context.Context) (id int64, ok bool, err error) {
	var last sql.NullInt64
	err = s.conn.QueryRowContext(ctx, `SELECT MAX(id) FROM outbox WHERE op = ?`, OpDelete).Scan(&last)
	return last.Int64, last.Valid, err
}

// DueDeletes returns up to limit delete rows with ids up to last whose
// backoff has passed at now, oldest first.
func (s *Store) DueDeletes(ctx context.Context, last int64, now time.Time, limit int) ([]OutboxRow, error) {
	return collectOutbox(s.conn.QueryContext(ctx, `SELECT id, op, message_id, resource_id, attempts FROM outbox
		WHERE op = ? AND id <= ? AND not_before <= ? ORDER BY id LIMIT ?`, OpDelete, last, now.UnixMilli(), limit))
}

// ThreadBytesOf is the SQL expression of the bytes of the messages of the
// thread whose id is the SQL expression thread ("?", "t.id"), as stored:
// the full content (a large tool result's by-reference text included),
// name, tool calls and metadata. It matches the engine's accounting of an
// append and migration 6.
func ThreadBytesOf(thread string) string {
	return `(SELECT COALESCE(SUM(length(CAST(COALESCE(b.content, m.content) AS BLOB)) + length(CAST(m.name AS BLOB))
	+ length(CAST(COALESCE(m.tool_calls, '') AS BLOB)) + length(CAST(m.metadata AS BLOB))), 0)
	FROM messages m LEFT JOIN message_blobs b ON b.message_id = m.id WHERE m.thread_id = ` + thread + `)`
}

// threadBytesSQL is ThreadBytesOf for the thread id parameter ?.
var threadBytesSQL = ThreadBytesOf("?")

// pgThreadBytesOf is ThreadBytesOf in Postgres: octet_length counts the
// UTF-8 bytes that SQLite's length(CAST(… AS BLOB)) counts.
func pgThreadBytesOf(thread string) string {
	return `(SELECT COALESCE(SUM(octet_length(COALESCE(b.content, m.content)) + octet_length(m.name)
	+ octet_length(COALESCE(m.tool_calls, '')) + octet_length(m.metadata)), 0)
	FROM messages m LEFT JOIN message_blobs b ON b.message_id = m.id WHERE m.thread_id = ` + thread + `)`
}

// threadBytesOf is ThreadBytesOf in the store's dialect.
func (s *Store) threadBytesOf(thread string) string {
	if s.pg() {
		return pgThreadBytesOf(thread)
	}
	return ThreadBytesOf(thread)
}
