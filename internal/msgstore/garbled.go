package msgstore

import (
	"context"
	"encoding/json"
	"unicode/utf8"
)

// Garbled is a stored message whose values are not what was appended:
// its text does not match its stored digest (Digest), or a text is not
// UTF-8 (the engine refuses any other), or its metadata or tool calls are
// not JSON. On SQLite this is a damaged overflow page (the rest of a long
// value), whose bytes nothing of SQLite's checks, or a large tool result
// (message_blobs) whose row was lost.
type Garbled struct {
	ThreadID string
	Seq      int64
	Why      string // "digest", "utf-8" or "json"
}

// GarbledMessages reads every stored message (and the full text of large
// tool results) and returns the garbled ones (Garbled), at most limit, by
// thread (in byte order on both backends: the first limit are the same
// ones whatever the database's collation) and seq; nil when every message
// is whole.
func (s *Store) GarbledMessages(ctx context.Context, limit int) ([]Garbled, error) {
	rows, err := s.conn.QueryContext(ctx, `SELECT m.thread_id, m.seq, m.role, COALESCE(b.content, m.content), m.name, m.tool_call_id, COALESCE(m.tool_calls, ''), m.metadata, m.digest
		FROM messages m LEFT JOIN message_blobs b ON b.message_id = m.id`+s.dialect.Text(` ORDER BY m.thread_id, m.seq`, ` ORDER BY m.thread_id COLLATE "C", m.seq`))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Garbled
	for rows.Next() && len(out) < limit {
		var g Garbled
		var role, content, name, callID, calls, meta, dg string
		if err := rows.Scan(&g.ThreadID, &g.Seq, &role, &content, &name, &callID, &calls, &meta, &dg); err != nil {
			return nil, err
		}
		if g.Why = garbledWhy(role, content, name, callID, calls, meta, dg); g.Why != "" {
			out = append(out, g)
		}
	}
	return out, rows.Err()
}

// garbledWhy says why a message's values are garbled (Garbled.Why), or "".
func garbledWhy(role, content, name, callID, calls, meta, dg string) string {
	for _, s := range [...]string{role, content, name, callID, calls, meta} {
		if !utf8.ValidString(s) {
			return "utf-8"
		}
	}
	if calls != "" && !json.Valid([]byte(calls)) || meta != "" && !json.Valid([]byte(meta)) {
		return "json"
	}
	if Digest(role, content, name, callID, []byte(calls)) != dg {
		return "digest"
	}
	return ""
}
