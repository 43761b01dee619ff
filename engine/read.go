package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Thread is a thread's metadata. It never carries message content.
type Thread struct {
	ID           string    `json:"id"`
	ResourceID   string    `json:"resourceId"`
	Title        string    `json:"title,omitempty"`
	MessageCount int64     `json:"messageCount"`
	LastSeq      int64     `json:"lastSeq"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	// LastActiveAt is the engine's clock at the thread's latest stored
	// append; idle expiry counts from it (lifecycle.go).
	LastActiveAt time.Time `json:"lastActiveAt"`
	// Bytes is the size of its messages as stored (what quotas count).
	Bytes int64 `json:"bytes"`
	// IdleTTL is the thread's own idle lifetime (SetIdleTTL): zero means
	// the configured default, negative means it never expires.
	IdleTTL time.Duration `json:"idleTtlNanos,omitempty"`
}

const threadColumns = `id, resource_id, title, message_count, last_seq, created_at, updated_at, last_active, bytes, idle_ttl`

func scanThread(s interface{ Scan(...any) error }) (Thread, error) {
	var t Thread
	var c, u, a, ttl int64
	err := s.Scan(&t.ID, &t.ResourceID, &t.Title, &t.MessageCount, &t.LastSeq, &c, &u, &a, &t.Bytes, &ttl)
	t.CreatedAt, t.UpdatedAt, t.LastActiveAt = time.UnixMilli(c).UTC(), time.UnixMilli(u).UTC(), time.UnixMilli(a).UTC()
	t.IdleTTL = time.Duration(ttl) * time.Millisecond
	if ttl < 0 {
		t.IdleTTL = -1
	}
	return t, err
}

// GetThread returns the thread's metadata, or ErrThreadNotFound.
func (e *Engine) GetThread(ctx context.Context, threadID string) (*Thread, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	t, err := scanThread(e.cachedQueryRow(ctx, `SELECT `+threadColumns+` FROM threads WHERE id = ?`, threadID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %q", ErrThreadNotFound, threadID)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: read thread %s: %w", threadID, err)
	}
	return &t, nil
}

// ListThreads returns the threads of resourceID (all threads when empty),
// ordered by resource, then by the time of their first message. It returns metadata only, never content.
func (e *Engine) ListThreads(ctx context.Context, resourceID string) ([]Thread, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	q, args := `SELECT `+threadColumns+` FROM threads ORDER BY resource_id, created_at, id`, []any{}
	if resourceID != "" {
		q, args = `SELECT `+threadColumns+` FROM threads WHERE resource_id = ? ORDER BY created_at, id`, []any{resourceID}
	}
	rows, err := e.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("engine: list threads: %w", err)
	}
	defer rows.Close()
	var out []Thread
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, fmt.Errorf("engine: list threads: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// messageColumns are the columns scanMessage reads, in order.
const messageColumns = `id, thread_id, resource_id, seq, role, content, name, tool_calls, tool_call_id, metadata, created_at, tokens,
	EXISTS (SELECT 1 FROM message_blobs b WHERE b.message_id = messages.id)`

func scanMessage(s interface{ Scan(...any) error }) (Message, error) {
	var m Message
	var calls sql.NullString
	var meta string
	var created int64
	if err := s.Scan(&m.ID, &m.ThreadID, &m.ResourceID, &m.Seq, &m.Role, &m.Content, &m.Name, &calls,
		&m.ToolCallID, &meta, &created, &m.Tokens, &m.Truncated); err != nil {
		return m, err
	}
	m.CreatedAt = time.UnixMilli(created).UTC()
	if calls.Valid && calls.String != "" {
		if err := json.Unmarshal([]byte(calls.String), &m.ToolCalls); err != nil {
			return m, fmt.Errorf("decode tool calls of %s: %w", m.ID, err)
		}
	}
	if meta != "" && meta != "{}" {
		if err := json.Unmarshal([]byte(meta), &m.Metadata); err != nil {
			return m, fmt.Errorf("decode metadata of %s: %w", m.ID, err)
		}
	}
	return m, nil
}

func (e *Engine) queryMessages(ctx context.Context, q string, args ...any) ([]Message, error) {
	rows, err := e.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return collectMessages(rows)
}

// collectMessages scans and closes rows of messageColumns.
func collectMessages(rows *sql.Rows) ([]Message, error) {
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// Messages returns the thread's messages with fromSeq <= seq <= toSeq in seq
// order; toSeq <= 0 means to the end. It returns ErrThreadNotFound for an
// unknown thread.
func (e *Engine) Messages(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]Message, error) {
	if _, err := e.GetThread(ctx, threadID); err != nil {
		return nil, err
	}
	if toSeq <= 0 {
		toSeq = 1<<63 - 1
	}
	ms, err := e.queryMessages(ctx, `SELECT `+messageColumns+` FROM messages WHERE thread_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`,
		threadID, fromSeq, toSeq)
	if err != nil {
		return nil, fmt.Errorf("engine: read messages of %s: %w", threadID, err)
	}
	return ms, nil
}

// MessagesByID returns the stored messages with the given ids, in the order
// asked; ids that are not stored are left out. When resourceID is not empty,
// messages of other resources are left out too, so a fetch by id never
// crosses resources.
func (e *Engine) MessagesByID(ctx context.Context, resourceID string, ids ...string) ([]Message, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return []Message{}, nil
	}
	// The ids travel as one JSON array, so that a single cached statement
	// serves any number of them (an IN list of n placeholders is a new
	// statement to prepare for every n: ~0.4 ms of each LoadContext). The
	// unary + keeps SQLite from choosing messages_by_resource, which scans
	// every message of the resource (100k rows in a big resource, measured
	// by `mnemo bench`); the unique id index finds the few asked for.
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("engine: read messages by id: %w", err)
	}
	q, args := `SELECT `+messageColumns+` FROM messages WHERE id IN (SELECT value FROM json_each(?))`, []any{string(list)}
	if resourceID != "" {
		q += ` AND +resource_id = ?`
		args = append(args, resourceID)
	}
	rows, err := e.cachedQuery(ctx, q, args...)
	var ms []Message
	if err == nil {
		ms, err = collectMessages(rows)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: read messages by id: %w", err)
	}
	byID := make(map[string]Message, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	out := make([]Message, 0, len(byID))
	for _, id := range ids {
		if m, ok := byID[id]; ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// FullContent returns a message's full content: for a large tool result
// stored by reference, the whole result; otherwise the stored content.
func (e *Engine) FullContent(ctx context.Context, messageID string) (string, error) {
	if err := e.checkOpen(); err != nil {
		return "", err
	}
	var s string
	err := e.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT content FROM message_blobs WHERE message_id = m.id), m.content)
		FROM messages m WHERE m.id = ?`, messageID).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("engine: message %q not found", messageID)
	}
	return s, err
}

// recentMessages returns the last n messages of the thread in seq order.
func (e *Engine) recentMessages(ctx context.Context, threadID string, n int) ([]Message, error) {
	if n <= 0 {
		return nil, nil
	}
	rows, err := e.cachedQuery(ctx, `SELECT `+messageColumns+` FROM messages WHERE thread_id = ? ORDER BY seq DESC LIMIT ?`, threadID, n)
	var ms []Message
	if err == nil {
		ms, err = collectMessages(rows)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: read recent messages of %s: %w", threadID, err)
	}
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
	return ms, nil
}
