package msgstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/mnemo-go/mnemo/recall"
)

var _ recall.Source = (*Store)(nil)

// ResourceDocs implements recall.Source: every stored message of
// resourceID as a recall document (tool calls appended to the content,
// recall.WithToolCalls), ordered by thread and seq.
func (s *Store) ResourceDocs(ctx context.Context, resourceID string) ([]recall.Doc, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, thread_id, seq, role, name, content, tool_calls, metadata, created_at
		FROM messages WHERE resource_id = ? ORDER BY thread_id, seq`, resourceID)
	if err != nil {
		return nil, fmt.Errorf("recall: load messages of %s: %w", resourceID, err)
	}
	defer rows.Close()
	var docs []recall.Doc
	for rows.Next() {
		d := recall.Doc{ResourceID: resourceID}
		var md string
		var calls sql.NullString
		var created int64
		if err := rows.Scan(&d.ID, &d.ThreadID, &d.Seq, &d.Role, &d.Name, &d.Content, &calls, &md, &created); err != nil {
			return nil, fmt.Errorf("recall: load messages of %s: %w", resourceID, err)
		}
		d.Metadata = DecodeMetadata(md)
		d.Content = recall.WithToolCalls(d.Content, []byte(calls.String))
		d.CreatedAt = unixMilli(created)
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recall: load messages of %s: %w", resourceID, err)
	}
	return docs, nil
}

// ResourceVectors implements recall.Source: fn sees every embedding stored
// for resourceID by embedder; a blob that does not decode is passed as a nil
// vector.
func (s *Store) ResourceVectors(ctx context.Context, resourceID, embedder string, fn func(string, []float32) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT message_id, dims, vector FROM embeddings WHERE embedder = ? AND resource_id = ?`, embedder, resourceID)
	if err != nil {
		return fmt.Errorf("recall: load embeddings of %s: %w", resourceID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var dims int
		var blob []byte
		if err := rows.Scan(&id, &dims, &blob); err != nil {
			return fmt.Errorf("recall: load embeddings of %s: %w", resourceID, err)
		}
		v, err := DecodeVector(blob, dims)
		if err != nil {
			v = nil // damaged: the shard skips it and reports it
		}
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
