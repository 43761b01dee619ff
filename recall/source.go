package recall

import (
	"context"
	"encoding/json"
)

// Source is where an Index loads a resource's messages and stored
// embeddings from, on the resource's first search. The engine's message
// store reads mnemo's SQLite schema; tests may supply their own. The Index wraps a Source's
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

// WithToolCalls returns content followed by the name and the arguments'
// text of each tool call in toolCallsJSON (the messages.tool_calls column:
// a JSON array of {id, name, arguments}), so that an assistant turn that
// only called tools is still findable by what it asked for. The arguments'
// text is their JSON decoded: {"city":"Z\u00fcrich","n":2}
// contributes "city Zürich n 2", a string of a model's text that text.
// Empty or invalid JSON leaves content unchanged. Snapshots store this
// text (and terms of it): a change to it is a new snapshot text version,
// and older snapshots are rebuilt from the Source.
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
		b = appendArgumentsText(b, c.Arguments)
	}
	return string(b)
}

// appendArgumentsText appends to b, each after a space, the tokens of the
// valid JSON args: strings decoded (their escapes resolved: "\u003cb\u003e"
// is "<b>"), numbers, booleans and null as written, and no punctuation
// ({}[]:, and white space between tokens).
func appendArgumentsText(b []byte, args []byte) []byte {
	for i := 0; i < len(args); {
		switch c := args[i]; c {
		case '{', '}', '[', ']', ':', ',', ' ', '\t', '\n', '\r':
			i++
		case '"':
			end, escaped := stringEnd(args, i)
			b = append(b, ' ')
			b = appendJSONString(b, args[i:end], escaped)
			i = end
		default: // a number or a literal: up to the next punctuation
			j := i
			for j < len(args) && !jsonDelim(args[j]) {
				j++
			}
			b = append(b, ' ')
			b = append(b, args[i:j]...)
			i = j
		}
	}
	return b
}

// stringEnd returns the index just past the JSON string starting at
// args[i] (a '"'), and whether it holds an escape.
func stringEnd(args []byte, i int) (end int, escaped bool) {
	for j := i + 1; j < len(args); j++ {
		switch args[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(args), escaped
}

// appendJSONString appends the text of the JSON string lit (quotes
// included): its bytes between the quotes when it has no escape, else as
// encoding/json decodes it.
func appendJSONString(b, lit []byte, escaped bool) []byte {
	if len(lit) < 2 { // not from valid JSON
		return append(b, lit...)
	}
	if !escaped {
		return append(b, lit[1:len(lit)-1]...)
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return append(b, lit...)
	}
	return append(b, s...)
}

func jsonDelim(c byte) bool {
	switch c {
	case '{', '}', '[', ']', ':', ',', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
