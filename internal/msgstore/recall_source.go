package msgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/recall"
)

var (
	_ recall.Source         = (*Store)(nil)
	_ recall.SnapshotSource = (*Store)(nil)
)

// ResourceDocs implements recall.Source: fn sees every stored message of
// resourceID as a recall document (tool calls appended to the content,
// recall.WithToolCalls), ordered by thread and seq. The strings that repeat
// across messages (thread id, role, name) are shared, not copied per
// message.
func (s *Store) ResourceDocs(ctx context.Context, resourceID string, fn func(*recall.Doc) error) error {
	rows, err := s.conn.QueryContext(ctx, `SELECT id, thread_id, seq, role, name, content, tool_calls, metadata, created_at
		FROM messages WHERE resource_id = ? ORDER BY thread_id, seq`, resourceID)
	if err != nil {
		return fmt.Errorf("read messages: %w", err)
	}
	return scanDocs(rows, resourceID, fn)
}

// ThreadDocs implements recall.SnapshotSource: fn sees the stored messages
// of threadID (of resourceID) after afterSeq, as ResourceDocs shows them,
// in seq order.
func (s *Store) ThreadDocs(ctx context.Context, resourceID, threadID string, afterSeq int64, fn func(*recall.Doc) error) error {
	rows, err := s.conn.QueryContext(ctx, `SELECT id, thread_id, seq, role, name, content, tool_calls, metadata, created_at
		FROM messages WHERE resource_id = ? AND thread_id = ? AND seq > ? ORDER BY seq`, resourceID, threadID, afterSeq)
	if err != nil {
		return fmt.Errorf("read messages: %w", err)
	}
	return scanDocs(rows, resourceID, fn)
}

// ThreadMarks implements recall.SnapshotSource: fn sees every thread of
// resourceID with its message count and last seq.
func (s *Store) ThreadMarks(ctx context.Context, resourceID string, fn func(recall.ThreadMark) error) error {
	rows, err := s.conn.QueryContext(ctx, `SELECT id, message_count, last_seq FROM threads WHERE resource_id = ?`, resourceID)
	if err != nil {
		return fmt.Errorf("read thread marks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var m recall.ThreadMark
		if err := rows.Scan(&m.ThreadID, &m.Messages, &m.LastSeq); err != nil {
			return fmt.Errorf("read thread marks: %w", err)
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read thread marks: %w", err)
	}
	return nil
}

// scanDocs calls fn for each message of rows (of resourceID) and closes
// rows.
func scanDocs(rows *sql.Rows, resourceID string, fn func(*recall.Doc) error) error {
	defer rows.Close()
	shared := map[string]string{}
	intern := func(b sql.RawBytes) string {
		if v, ok := shared[string(b)]; ok {
			return v
		}
		v := string(b)
		shared[v] = v
		return v
	}
	for rows.Next() {
		d := recall.Doc{ResourceID: resourceID}
		var thread, role, name, md, calls sql.RawBytes
		var created int64
		if err := rows.Scan(&d.ID, &thread, &d.Seq, &role, &name, &d.Content, &calls, &md, &created); err != nil {
			return fmt.Errorf("read messages: %w", err)
		}
		d.ThreadID, d.Role, d.Name = intern(thread), intern(role), intern(name)
		d.Metadata = DecodeMetadata(string(md))
		d.Content = recall.WithToolCalls(d.Content, calls)
		d.CreatedAt = unixMilli(created)
		if err := fn(&d); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read messages: %w", err)
	}
	return nil
}

// ResourceVectors implements recall.Source: fn sees every embedding stored
// for resourceID by embedder; a blob that does not decode is passed as a nil
// vector. A derived embedder's vector (derived.go) is computed from its
// message.
func (s *Store) ResourceVectors(ctx context.Context, resourceID, embedder string, fn func(string, []float32) error) error {
	derived := s.derived(embedder, recall.HashDims)
	rows, err := s.conn.QueryContext(ctx, vectorsSelect(derived)+` WHERE e.embedder = ? AND e.resource_id = ?`, embedder, resourceID)
	if err != nil {
		return fmt.Errorf("read embeddings: %w", err)
	}
	if err := s.scanVectors(rows, derived, fn); err != nil {
		return fmt.Errorf("read embeddings: %w", err)
	}
	return nil
}

// MessageVectors implements recall.SnapshotSource: fn sees the stored
// embeddings by embedder of ids, as ResourceVectors shows them.
func (s *Store) MessageVectors(ctx context.Context, embedder string, ids []string, fn func(string, []float32) error) error {
	derived := s.derived(embedder, recall.HashDims)
	return store.InChunks(ids, func(in string, chunk []any) error {
		rows, err := s.conn.QueryContext(ctx, vectorsSelect(derived)+` WHERE e.embedder = ? AND e.message_id IN `+in,
			append([]any{embedder}, chunk...)...)
		if err != nil {
			return fmt.Errorf("read embeddings: %w", err)
		}
		if err := s.scanVectors(rows, derived, fn); err != nil {
			return fmt.Errorf("read embeddings: %w", err)
		}
		return nil
	})
}

// vectorsSelect is the SELECT of scanVectors' rows from embeddings e; with
// derived, each row carries whether its message is stored, and its name,
// content and tool calls.
func vectorsSelect(derived bool) string {
	if derived {
		return `SELECT e.message_id, e.dims, e.vector, m.id IS NOT NULL, m.name, m.content, m.tool_calls FROM embeddings e LEFT JOIN messages m ON m.id = e.message_id`
	}
	return `SELECT e.message_id, e.dims, e.vector FROM embeddings e`
}

// scanVectors calls fn for each embedding of rows (vectorsSelect(derived))
// and closes rows.
func (s *Store) scanVectors(rows *sql.Rows, derived bool, fn func(string, []float32) error) error {
	defer rows.Close()
	var buf []float32 // reused: fn does not keep the vector
	for rows.Next() {
		var id string
		var dims int
		var blob, name, content, calls sql.RawBytes
		var stored bool
		cell := vecCell{pg: s.pg()}
		dest := []any{&id, &dims, &blob}
		if cell.pg {
			dest[2] = cell.dest()
		}
		if derived {
			dest = append(dest, &stored, &name, &content, &calls)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		var v []float32
		switch {
		case cell.pg:
			v, _ = cell.decode(dims) // nil when damaged
		case len(blob) == 4*dims:
			if cap(buf) < dims {
				buf = make([]float32, dims)
			}
			v = decodeInto(buf[:dims], blob)
		case derived && len(blob) == 0 && stored:
			v = derivedVector(string(name), string(content), calls)
		} // else damaged (or a derived row whose message is gone): the shard skips it and reports it
		if err := fn(id, v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DecodeMetadata parses a metadata JSON object; anything else gives nil.
func DecodeMetadata(s string) map[string]any {
	if s == "" || s == "{}" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}
