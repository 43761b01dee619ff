package msgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Message is one stored row of messages, as stored.
type Message struct {
	ID         string
	ThreadID   string
	ResourceID string
	Seq        int64
	Role       string
	Content    string // a bounded summary when Truncated; the full text is in message_blobs
	Name       string
	ToolCalls  string // the tool_calls column: a JSON array of {id, name, arguments}, or ""
	ToolCallID string
	Metadata   string // a JSON object, "" or "{}" when none; its first ErasedPrefix bytes from the erasure's readers
	CreatedAt  time.Time
	Tokens     int
	Truncated  bool // a message_blobs row holds the full content
	// CallArgs is set by the erasure's readers only (ErasedByID,
	// ErasedOfThread, ErasedOfResource), nil elsewhere: the first
	// ErasedPrefix bytes of each tool call's arguments as the tool_calls
	// column stores them (compact JSON, escapes included), in call order,
	// for the engine's residue check.
	CallArgs []string
}

// messageColumns are the columns scanMessage reads, in order.
const messageColumns = `id, thread_id, resource_id, seq, role, content, name, tool_calls, tool_call_id, metadata, created_at, tokens,
	EXISTS (SELECT 1 FROM message_blobs b WHERE b.message_id = messages.id)`

type scanner interface{ Scan(...any) error }

func scanMessage(s scanner) (Message, error) {
	r := rowScans.Get().(*rowScan)
	defer r.release()
	return r.scan(s)
}

// rowScan holds scanMessage's destinations: one Message and the argument
// list of pointers into it, reused row after row and pooled (a new Message
// and argument list escaped to the heap for every row read: two objects,
// ~420 bytes a row, issue 14 in BENCHMARKS.md). A row's strings are the
// driver's (database/sql assigns them), so the Message a scan returns
// shares nothing with the next one.
type rowScan struct {
	m       Message
	calls   sql.NullString
	created int64
	dest    [13]any
}

var rowScans = sync.Pool{New: func() any {
	r := new(rowScan)
	r.dest = [13]any{&r.m.ID, &r.m.ThreadID, &r.m.ResourceID, &r.m.Seq, &r.m.Role, &r.m.Content, &r.m.Name, &r.calls,
		&r.m.ToolCallID, &r.m.Metadata, &r.created, &r.m.Tokens, &r.m.Truncated}
	return r
}}

// scan reads one row of messageColumns.
func (r *rowScan) scan(s scanner) (Message, error) {
	r.m, r.calls, r.created = Message{}, sql.NullString{}, 0
	err := s.Scan(r.dest[:]...)
	m := r.m
	m.ToolCalls = r.calls.String
	m.CreatedAt = time.UnixMilli(r.created).UTC()
	return m, err
}

// release returns r to the pool without the last row's strings.
func (r *rowScan) release() {
	r.m, r.calls = Message{}, sql.NullString{}
	rowScans.Put(r)
}

// collectMessages scans and closes rows of messageColumns (nil when there
// are none); about is how many rows are expected (the slice's first
// capacity, at most 1,024).
func collectMessages(rows *sql.Rows, about int) ([]Message, error) {
	defer rows.Close()
	r := rowScans.Get().(*rowScan)
	defer r.release()
	out := make([]Message, 0, min(max(about, 0), 1024))
	for rows.Next() {
		m, err := r.scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		out = nil // as before the capacity: no rows is a nil slice
	}
	return out, rows.Err()
}

// Messages returns the thread's messages with fromSeq <= seq <= toSeq, in
// seq order. An unknown thread yields none.
func (s *Store) Messages(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]Message, error) {
	rows, err := s.conn.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE thread_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`,
		threadID, fromSeq, toSeq)
	if err != nil {
		return nil, fmt.Errorf("read messages of %s: %w", threadID, err)
	}
	ms, err := collectMessages(rows, 0)
	if err != nil {
		return nil, fmt.Errorf("read messages of %s: %w", threadID, err)
	}
	return ms, nil
}

// MessagesByID returns the stored messages with the given ids, in the order
// asked; ids that are not stored are left out. When resourceID is not empty,
// messages of other resources are left out too, so a fetch by id never
// crosses resources.
func (s *Store) MessagesByID(ctx context.Context, resourceID string, ids []string) ([]Message, error) {
	ms, err := s.MessagesByIDUnordered(ctx, resourceID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]int, len(ms)) // index in ms
	for i, m := range ms {
		byID[m.ID] = i
	}
	out := make([]Message, 0, len(byID))
	for _, id := range ids {
		if i, ok := byID[id]; ok {
			out = append(out, ms[i])
		}
	}
	return out, nil
}

// MessagesByIDUnordered is MessagesByID without its ordering: each stored
// message among ids once (nil when there are none), in the order the
// database returns them, for a caller that looks them up by id itself
// (LoadContext's recall step: the ordered copy and its map were ~4 KB a
// call, issue 14 in BENCHMARKS.md).
func (s *Store) MessagesByIDUnordered(ctx context.Context, resourceID string, ids []string) ([]Message, error) {
	// The ids travel as one JSON array, so that a single cached statement
	// serves any number of them (an IN list of n placeholders is a new
	// statement to prepare for every n: ~0.4 ms of each LoadContext). The
	// unary + keeps SQLite from choosing messages_by_resource, which scans
	// every message of the resource (100k rows in a big resource, measured
	// by `mnemo bench`); the unique id index finds the few asked for.
	return s.MessagesByIDWithin(ctx, resourceID, ids, 0)
}

// StoredIDs returns which of ids are stored messages (the others are
// absent from the map): MessagesByID's lookup without reading the rows,
// for a caller that holds their contents already (the engine's drainer,
// given the messages an Append just wrote). It reads the unique id index
// only.
func (s *Store) StoredIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	q, args, err := s.byIDQuery("", ids)
	if err == nil {
		q = strings.Replace(q, `SELECT `+messageColumns+` FROM`, `SELECT id FROM`, 1)
	}
	out := make(map[string]bool, len(ids))
	var rows *sql.Rows
	if err == nil {
		rows, err = s.stmts.Query(ctx, q, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("look up messages by id: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("look up messages by id: %w", err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up messages by id: %w", err)
	}
	return out, nil
}

// byIDQuery is MessagesByID's statement and arguments. On Postgres the
// ids travel as one text[] (= ANY($1), one cached statement for any
// number) and need no hint: the planner picks the unique id index.
func (s *Store) byIDQuery(resourceID string, ids []string) (string, []any, error) {
	return s.byIDSelect(messageColumns, resourceID, ids)
}

// byIDSelect is byIDQuery selecting columns (SQL text the same in both
// dialects) instead of messageColumns.
func (s *Store) byIDSelect(columns, resourceID string, ids []string) (string, []any, error) {
	if s.pg() {
		q, args := `SELECT `+columns+` FROM messages WHERE id = ANY($1::text[])`, []any{ids}
		if resourceID != "" {
			q += ` AND resource_id = $2`
			args = append(args, resourceID)
		}
		return q, args, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return "", nil, err
	}
	q, args := `SELECT `+columns+` FROM messages WHERE id IN (SELECT value FROM json_each(?))`, []any{string(list)}
	if resourceID != "" {
		q += ` AND +resource_id = ?`
		args = append(args, resourceID)
	}
	return q, args, nil
}

// FullContent returns a message's full content: for a large tool result
// stored by reference, the whole result; otherwise the stored content. An
// unknown id is ErrNotFound.
func (s *Store) FullContent(ctx context.Context, messageID string) (string, error) {
	var c string
	err := s.conn.QueryRowContext(ctx, `SELECT COALESCE((SELECT content FROM message_blobs WHERE message_id = m.id), m.content)
		FROM messages m WHERE m.id = ?`, messageID).Scan(&c)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%w: message %q", ErrNotFound, messageID)
	}
	return c, err
}

// Recent returns the last n messages of the thread in seq order.
func (s *Store) Recent(ctx context.Context, threadID string, n int) ([]Message, error) {
	return s.RecentWithin(ctx, threadID, n, 0)
}

// MessagesPage returns at most limit of the thread's messages with
// fromSeq <= seq <= toSeq: the lowest seqs in seq order, or, when newest,
// the highest seqs in descending seq order. The bound is the query's LIMIT:
// a page never reads the rest of the thread. An unknown thread yields none.
func (s *Store) MessagesPage(ctx context.Context, threadID string, fromSeq, toSeq int64, limit int, newest bool) ([]Message, error) {
	ms, _, err := s.MessagesPageWithin(ctx, threadID, fromSeq, toSeq, limit, newest, 0)
	return ms, err
}
