package msgstore

import (
	"context"
	"database/sql"
	"errors"
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
	_, err := s.in(tx).ExecContext(ctx,
		s.dialect.Text(`UPDATE threads SET last_seq = ?, message_count = message_count + ?, updated_at = max(updated_at, ?),
				last_active = max(last_active, ?), bytes = bytes + ? WHERE id = ?`,
			`UPDATE threads SET last_seq = $1, message_count = message_count + $2, updated_at = GREATEST(updated_at, $3),
				last_active = GREATEST(last_active, $4), bytes = bytes + $5 WHERE id = $6`),
		a.LastSeq, a.Stored, a.Latest.UnixMilli(), a.Active.UnixMilli(), a.Bytes, a.ID)
	return err
}

// Appender stores one append's messages inside its transaction, through
// statements prepared once per connection (store.Stmts) and bound to the
// transaction once.
type Appender struct {
	tx                    store.Conn // the transaction, in the store's dialect
	pg                    bool       // Postgres: Lookup locks the id first
	insert, lookup, queue *sql.Stmt
}

// Appender returns an Appender writing inside tx.
func (s *Store) Appender(ctx context.Context, tx *store.Tx) (*Appender, error) {
	a := &Appender{tx: s.in(tx), pg: s.pg()}
	var err error
	if a.insert, err = s.stmts.InTx(ctx, tx.Tx, `INSERT INTO messages
		(id, thread_id, resource_id, seq, role, content, name, tool_calls, tool_call_id, metadata, created_at, tokens, digest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		return nil, err
	}
	if a.lookup, err = s.stmts.InTx(ctx, tx.Tx, `SELECT thread_id, seq, digest, metadata FROM messages WHERE id = ?`); err != nil {
		return nil, err
	}
	if a.queue, err = s.stmts.InTx(ctx, tx.Tx, s.dialect.Text(`INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('index', ?, ?, ?)`,
		`INSERT INTO outbox (op, message_id, resource_id, created_at) VALUES ('embed', $1, $2, $3)`)); err != nil {
		return nil, err
	}
	return a, nil
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
	err = a.lookup.QueryRowContext(ctx, id).Scan(&d.ThreadID, &d.Seq, &d.Digest, &d.Metadata)
	if errors.Is(err, sql.ErrNoRows) {
		return d, false, nil
	}
	if err != nil {
		return d, false, err
	}
	return d, true, nil
}

// Insert stores m (Truncated is ignored: a message_blobs row is InsertBlob's)
// with digest, the content digest that makes appends idempotent. An empty
// m.ToolCalls is stored as NULL.
func (a *Appender) Insert(ctx context.Context, m Message, digest string) error {
	var calls any
	if m.ToolCalls != "" {
		calls = m.ToolCalls
	}
	_, err := a.insert.ExecContext(ctx, m.ID, m.ThreadID, m.ResourceID, m.Seq, m.Role, m.Content, m.Name,
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
	_, err := a.queue.ExecContext(ctx, id, resourceID, now.UnixMilli())
	return err
}
