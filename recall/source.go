package recall

import (
	"context"
	"encoding/json"
)

// Source is where an Index loads a resource's messages and stored
// embeddings from, on the resource's first search. internal/msgstore reads mnemo's
// SQLite schema; tests may supply their own. The Index wraps a Source's
// errors (and SnapshotSource's) with "recall:", the step and the resource
// or thread, so a Source's own text names at most its step ("read
// messages: …"), not these again.
type Source interface {
	// ResourceDocs calls fn for every stored message of resourceID, in
	// thread and seq order; fn may keep d's fields but not d, which the
	// Source may reuse (a large resource loads without a slice of all its
	// messages beside the shard's own copy). An error from fn stops the
	// walk and is returned.
	ResourceDocs(ctx context.Context, resourceID string, fn func(d *Doc) error) error
	// ResourceVectors calls fn for every embedding stored for resourceID by
	// embedder; fn's vector must not be retained past the call unless copied.
	// A stored embedding that cannot be decoded (a blob whose length does not
	// match its dimension) is passed as a nil vector, not returned as an
	// error: one damaged row must not make the whole resource unloadable.
	ResourceVectors(ctx context.Context, resourceID, embedder string, fn func(messageID string, vec []float32) error) error
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
