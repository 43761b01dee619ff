package recall

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Source is where an Index loads a resource's messages and stored
// embeddings from, on the resource's first search. SQLSource reads mnemo's
// SQLite schema; tests may supply their own.
type Source interface {
	// ResourceDocs returns every stored message of resourceID.
	ResourceDocs(ctx context.Context, resourceID string) ([]Doc, error)
	// ResourceVectors calls fn for every embedding stored for resourceID by
	// embedder; fn's vector must not be retained past the call unless copied.
	// A stored embedding that cannot be decoded (a blob whose length does not
	// match its dimension) is passed as a nil vector, not returned as an
	// error: one damaged row must not make the whole resource unloadable.
	ResourceVectors(ctx context.Context, resourceID, embedder string, fn func(messageID string, vec []float32) error) error
}

// SQLSource reads messages and embeddings from mnemo's SQLite database
// (tables messages and embeddings, schema v1 in internal/store).
type SQLSource struct {
	DB *sql.DB
}

var _ Source = SQLSource{}

// ResourceDocs implements Source.
func (s SQLSource) ResourceDocs(ctx context.Context, resourceID string) ([]Doc, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT id, thread_id, seq, role, name, content, tool_calls, metadata, created_at
		FROM messages WHERE resource_id = ? ORDER BY thread_id, seq`, resourceID)
	if err != nil {
		return nil, fmt.Errorf("recall: load messages of %s: %w", resourceID, err)
	}
	defer rows.Close()
	var docs []Doc
	for rows.Next() {
		d := Doc{ResourceID: resourceID}
		var md string
		var calls sql.NullString
		var created int64
		if err := rows.Scan(&d.ID, &d.ThreadID, &d.Seq, &d.Role, &d.Name, &d.Content, &calls, &md, &created); err != nil {
			return nil, fmt.Errorf("recall: load messages of %s: %w", resourceID, err)
		}
		d.Metadata = DecodeMetadata(md)
		d.Content = WithToolCalls(d.Content, []byte(calls.String))
		d.CreatedAt = time.UnixMilli(created).UTC()
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recall: load messages of %s: %w", resourceID, err)
	}
	return docs, nil
}

// ResourceVectors implements Source.
func (s SQLSource) ResourceVectors(ctx context.Context, resourceID, embedder string, fn func(string, []float32) error) error {
	rows, err := s.DB.QueryContext(ctx, `SELECT message_id, dims, vector FROM embeddings WHERE embedder = ? AND resource_id = ?`, embedder, resourceID)
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

// EncodeVector returns v as little-endian float32s, the layout of
// embeddings.vector.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector parses a little-endian float32 blob of dims values; a blob of
// another length returns ErrDimension.
func DecodeVector(b []byte, dims int) ([]float32, error) {
	if len(b) != 4*dims {
		return nil, fmt.Errorf("%w: blob of %d bytes for %d dims", ErrDimension, len(b), dims)
	}
	v := make([]float32, dims)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// WithToolCalls returns content followed by the name and arguments of each
// tool call in toolCallsJSON (the messages.tool_calls column: a JSON array of
// {id, name, arguments}), so that an assistant turn that only called tools is
// still findable by what it asked for. Empty or invalid JSON leaves content
// unchanged.
func WithToolCalls(content string, toolCallsJSON []byte) string {
	if len(toolCallsJSON) == 0 {
		return content
	}
	var calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(toolCallsJSON, &calls) != nil {
		return content
	}
	b := []byte(content)
	for _, c := range calls {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, c.Name...)
		if len(c.Arguments) > 0 {
			b = append(b, ' ')
			b = append(b, c.Arguments...)
		}
	}
	return string(b)
}
