package msgstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/mnemo-go/mnemo/internal/store"
)

// This file holds the statements of an append: the thread's head, the
// thread's creation, and an Appender that looks up, stores and queues one
// append's messages. Every write takes the caller's transaction, so that an
// append (with the hooks the engine runs in it) is one transaction.

// ThreadHead is what an append reads of its thread, as stored.
type ThreadHead struct {
	ResourceID   string
	LastSeq      int64
	LastActiveMS int64 // threads.last_active: milliseconds since the epoch
	IdleTTLMS    int64 // threads.idle_ttl: 0 the default, negative never
}

// ThreadHead reads the head of threadID inside tx; ok is false when the
// thread is not stored.
//
// On Postgres it first locks the thread for the rest of tx (a
// transaction-scoped advisory lock on the thread id, then the row FOR
// UPDATE), so that appends to one thread from any number of connections or
// processes run one after the other and each reads the head the previous
// one committed: seqs stay unique and gap-free, and a thread is created
// once. On SQLite the write transaction (BEGIN IMMEDIATE) already
// serializes every append.
func (s *Store) ThreadHead(ctx context.Context, tx *store.Tx, threadID string) (h ThreadHead, ok bool, err error) {
	q := `SELECT resource_id, last_seq, last_active, idle_ttl FROM threads WHERE id = ?`
	if s.pg() {
		if err := xactLock(ctx, s.in(tx), threadLock, threadID); err != nil {
			return h, false, err
		}
		q = `SELECT resource_id, last_seq, last_active, idle_ttl FROM threads WHERE id = $1 FOR UPDATE`
	}
	st, err := s.stmts.InTx(ctx, tx.Tx, q)
	if err != nil {
		return h, false, err
	}
	err = st.QueryRowContext(ctx, threadID).Scan(&h.ResourceID, &h.LastSeq, &h.LastActiveMS, &h.IdleTTLMS)
	if errors.Is(err, sql.ErrNoRows) {
		return h, false, nil
	}
	if err != nil {
		return h, false, err
	}
	return h, true, nil
}

// NewThread is a thread to create.
type NewThread struct {
	ID, ResourceID, Title string
	// Start is the thread's created_at and updated_at: when its first
	// message was said.
	Start time.Time
	// Active is its last_active: the engine's clock at the append.
	Active time.Time
}

// CreateThread inserts t inside tx.
func (s *Store) CreateThread(ctx context.Context, tx *store.Tx, t NewThread) error {
	_, err := s.in(tx).ExecContext(ctx,
		`INSERT INTO threads (id, resource_id, title, created_at, updated_at, last_active) VALUES (?, ?, ?, ?, ?, ?)`,
		t.ID, t.ResourceID, t.Title, t.Start.UnixMilli(), t.Start.UnixMilli(), t.Active.UnixMilli())
	return err
}

// ThreadAdvance is what an append that stored messages changes in its
// thread's row.
type ThreadAdvance struct {
	ID      string
	LastSeq int64     // the new last_seq
	Stored  int64     // messages stored now (added to message_count)
	Latest  time.Time // the newest stored message's time (updated_at at least this)
	Active  time.Time // the engine's clock (last_active at least this)
	Bytes   int64     // bytes stored now (added to bytes)
}

// AdvanceThread applies a inside tx.
func (s *Store) AdvanceThread(ctx context.Context, tx *store.Tx, a ThreadAdvance) error {
	// Through the cached statement, as the rest of an append: preparing it
	// on every append was 1.8 % of the ingest's CPU at 100k (issue 14).
	st, err := s.stmts.InTx(ctx, tx.Tx,
		s.dialect.Text(`UPDATE threads SET last_seq = ?, message_count = message_count + ?, updated_at = max(updated_at, ?),
				last_active = max(last_active, ?), bytes = bytes + ? WHERE id = ?`,
			`UPDATE threads SET last_seq = $1, message_count = message_count + $2, updated_at = GREATEST(updated_at, $3),
				last_active = GREATEST(last_active, $4), bytes = bytes + $5 WHERE id = $6`))
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, a.LastSeq, a.Stored, a.Latest.UnixMilli(), a.Active.UnixMilli(), a.Bytes, a.ID)
	return err
}

// Appender stores one append's messages inside its transaction, through
// statements prepared once per connection (store.Stmts) and bound to the
// transaction once.
type Appender struct {
	tx                    store.Conn // the transaction, in the store's dialect
	stx                   *sql.Tx
	stmts                 *store.Stmts
	pg                    bool // Postgres: Lookup locks the id first
	insert, lookup, queue *sql.Stmt
	queueText             string
}

// Appender returns an Appender writing inside tx. Its statements are
// bound to tx when first used.
func (s *Store) Appender(ctx context.Context, tx *store.Tx) (*Appender, error) {
	return &Appender{tx: s.in(tx), stx: tx.Tx, stmts: s.stmts, pg: s.pg(), queueText: s.dialect.Text(
		`INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('index', ?, ?, ?)`,
		`INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('embed', $1, $2, $3)`)}, nil
}

// stmt returns *st, query's statement on the Appender's transaction,
// binding it on first use.
func (a *Appender) stmt(ctx context.Context, st **sql.Stmt, query string) (*sql.Stmt, error) {
	if *st == nil {
		s, err := a.stmts.InTx(ctx, a.stx, query)
		if err != nil {
			return nil, err
		}
		*st = s
	}
	return *st, nil
}

// StoredDigest is what an append compares of a message already stored
// under the id it asks for.
type StoredDigest struct {
	ThreadID string
	Seq      int64
	Digest   string
	Metadata string // the metadata column, as stored
}

// Lookup returns the stored digest of message id; ok is false when no
// message has that id.
//
// On Postgres it first locks the id for the rest of the transaction (an
// advisory lock), so that of two transactions storing one message id the
// second waits for the first and then finds its row: an append by id is
// idempotent across connections and processes, as on SQLite where the
// write transaction serializes them. Two appends that store the same ids
// in opposite orders can deadlock; Postgres aborts one (SQLSTATE 40P01)
// and it may be retried.
func (a *Appender) Lookup(ctx context.Context, id string) (d StoredDigest, ok bool, err error) {
	if a.pg {
		if err := xactLock(ctx, a.tx, idLock, id); err != nil {
			return d, false, err
		}
	}
	st, err := a.stmt(ctx, &a.lookup, `SELECT thread_id, seq, digest, metadata FROM messages WHERE id = ?`)
	if err != nil {
		return d, false, err
	}
	err = st.QueryRowContext(ctx, id).Scan(&d.ThreadID, &d.Seq, &d.Digest, &d.Metadata)
	if errors.Is(err, sql.ErrNoRows) {
		return d, false, nil
	}
	if err != nil {
		return d, false, err
	}
	return d, true, nil
}

// StoredText is what an append compares of a stored assistant message
// when the digest of the one re-sent under its id differs: the text the
// digest covers, its tool calls as stored (JSON text, "" for none).
type StoredText struct {
	Role, Content, Name, ToolCallID, ToolCalls string
}

// Text returns the stored text of message id, inside the append's
// transaction (its id is locked by Lookup on Postgres already); ok is
// false when no message has that id. Content is the stored column: a
// large tool result's summary, never an assistant message's.
func (a *Appender) Text(ctx context.Context, id string) (c StoredText, ok bool, err error) {
	var calls sql.NullString
	err = a.tx.QueryRowContext(ctx, `SELECT role, content, name, tool_calls, tool_call_id FROM messages WHERE id = ?`, id).
		Scan(&c.Role, &c.Content, &c.Name, &calls, &c.ToolCallID)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	c.ToolCalls = calls.String
	return c, true, nil
}

// Insert stores m (Truncated is ignored: a message_blobs row is InsertBlob's)
// with digest, the content digest that makes appends idempotent. An empty
// m.ToolCalls is stored as NULL.
func (a *Appender) Insert(ctx context.Context, m Message, digest string) error {
	var calls any
	if m.ToolCalls != "" {
		calls = m.ToolCalls
	}
	st, err := a.stmt(ctx, &a.insert, `INSERT INTO messages
		(id, thread_id, resource_id, seq, role, content, name, tool_calls, tool_call_id, metadata, created_at, tokens, digest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, m.ID, m.ThreadID, m.ResourceID, m.Seq, m.Role, m.Content, m.Name,
		calls, m.ToolCallID, m.Metadata, m.CreatedAt.UnixMilli(), m.Tokens, digest)
	return err
}

// InsertBlob stores the full content of message id (a large tool result
// whose stored content is a summary).
func (a *Appender) InsertBlob(ctx context.Context, id, full string) error {
	_, err := a.tx.ExecContext(ctx, `INSERT INTO message_blobs (message_id, content) VALUES (?, ?)`, id, full)
	return err
}

// QueueIndex queues message id of resourceID for indexing (an outbox row,
// op "index", created at now). On Postgres the row is op "embed": the
// lexical entry is written in the append's own transaction
// (pgstore.PutLexicalTx), and only the embedding, a model call, is owed.
func (a *Appender) QueueIndex(ctx context.Context, id, resourceID string, now time.Time) error {
	st, err := a.stmt(ctx, &a.queue, a.queueText)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, id, resourceID, now.UnixMilli())
	return err
}

// appendChunk is how many messages one multi-row statement of an Appender
// writes (13 values each: far below SQLite's 32,766 parameters and
// Postgres's 65,535).
const appendChunk = 64

// LookupAll returns the stored digests of those of ids that are stored,
// by id: Lookup for a batch, one statement per chunk on SQLite instead of
// one per id. On Postgres it is Lookup per id, in order (each locks its id
// first).
func (a *Appender) LookupAll(ctx context.Context, ids []string) (map[string]StoredDigest, error) {
	out := make(map[string]StoredDigest, len(ids))
	if a.pg {
		for _, id := range ids {
			d, ok, err := a.Lookup(ctx, id)
			if err != nil {
				return nil, err
			}
			if ok {
				out[id] = d
			}
		}
		return out, nil
	}
	for from := 0; from < len(ids); from += appendChunk {
		chunk := ids[from:min(from+appendChunk, len(ids))]
		if err := a.lookupChunk(ctx, chunk, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lookupChunk adds the stored digests of ids to out.
func (a *Appender) lookupChunk(ctx context.Context, ids []string, out map[string]StoredDigest) error {
	st, err := a.stmts.InTx(ctx, a.stx, `SELECT id, thread_id, seq, digest, metadata FROM messages WHERE id IN `+store.Placeholders(len(ids)))
	if err != nil {
		return err
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var d StoredDigest
		if err := rows.Scan(&id, &d.ThreadID, &d.Seq, &d.Digest, &d.Metadata); err != nil {
			return err
		}
		out[id] = d
	}
	return rows.Err()
}

// InsertAll stores ms (digests[i] is ms[i]'s) and queues each for
// indexing as QueueIndex does, at now: Insert and QueueIndex for a batch,
// in order (the rows get ascending keys as one by one), one multi-row
// statement per chunk and table instead of two statements per message.
func (a *Appender) InsertAll(ctx context.Context, ms []Message, digests []string, now time.Time) error {
	for from := 0; from < len(ms); from += appendChunk {
		to := min(from+appendChunk, len(ms))
		if err := a.insertChunk(ctx, ms[from:to], digests[from:to]); err != nil {
			return err
		}
	}
	for from := 0; from < len(ms); from += appendChunk {
		if err := a.queueChunk(ctx, ms[from:min(from+appendChunk, len(ms))], now); err != nil {
			return err
		}
	}
	return nil
}

// insertChunk is one multi-row INSERT of InsertAll.
func (a *Appender) insertChunk(ctx context.Context, ms []Message, digests []string) error {
	st, err := a.stmts.InTx(ctx, a.stx, `INSERT INTO messages
		(id, thread_id, resource_id, seq, role, content, name, tool_calls, tool_call_id, metadata, created_at, tokens, digest)
		VALUES `+rowsOf(len(ms), 13))
	if err != nil {
		return err
	}
	args := make([]any, 0, 13*len(ms))
	for i, m := range ms {
		var calls any
		if m.ToolCalls != "" {
			calls = m.ToolCalls
		}
		args = append(args, m.ID, m.ThreadID, m.ResourceID, m.Seq, m.Role, m.Content, m.Name,
			calls, m.ToolCallID, m.Metadata, m.CreatedAt.UnixMilli(), m.Tokens, digests[i])
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// queueChunk is one multi-row outbox INSERT of InsertAll.
func (a *Appender) queueChunk(ctx context.Context, ms []Message, now time.Time) error {
	op := OpIndex
	if a.pg {
		op = OpEmbed // see QueueIndex
	}
	st, err := a.stmts.InTx(ctx, a.stx, `INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES `+rowsOf(len(ms), 4))
	if err != nil {
		return err
	}
	args := make([]any, 0, 4*len(ms))
	for _, m := range ms {
		args = append(args, op, m.ID, m.ResourceID, now.UnixMilli())
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// rowsOf returns n parenthesised rows of cols placeholders, comma-separated:
// "(?,?),(?,?)".
func rowsOf(n, cols int) string {
	row := store.Placeholders(cols)
	return row + strings.Repeat(","+row, n-1)
}
