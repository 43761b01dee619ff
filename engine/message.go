package engine

import (
	"encoding/json"
	"time"
)

// Roles a stored message may have. There is no system role in memory:
// system prompts belong to the caller.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one stored turn of a thread.
//
// In an AppendRequest, ID is optional (a ULID is generated when empty), Seq,
// ThreadID, ResourceID and Tokens are ignored (the store assigns them) and
// CreatedAt defaults to the engine clock; a set one lies within the years
// 0000 to 9999, what RFC 3339 can write (else ErrInvalidInput), and not
// more than MaxCreatedAtAhead (a day) past the engine clock (else
// ErrCreatedAtFuture); any past time is kept.
type Message struct {
	// ID is unique in the data directory: 1-128 characters of [A-Za-z0-9_.:@-], not "." or ".." and not beginning with "erased-" (ValidNewID); Append generates a ULID when empty.
	ID string `json:"id"`
	// ThreadID is the message's thread (set by Append from the request).
	ThreadID string `json:"threadId"`
	// ResourceID is the thread's resource (set by Append).
	ResourceID string `json:"resourceId"`
	// Seq is the message's 1-based position in its thread, gap-free; set by Append.
	Seq int64 `json:"seq"`
	// Role is RoleUser, RoleAssistant or RoleTool (else a *ValidationError).
	Role string `json:"role"`
	// Content is the text: valid UTF-8 without NUL, at most Limits.MaxContentBytes (else a *ValidationError).
	Content    string         `json:"content"`
	Name       string         `json:"name,omitempty"`       // speaker or tool name: at most 256 bytes, no control characters, line separators or bidirectional controls
	ToolCalls  []ToolCall     `json:"toolCalls,omitempty"`  // assistant messages only; read from a stored value that is not a JSON array of calls (written outside mnemo), the calls message_calls indexes in it (Malformed)
	ToolCallID string         `json:"toolCallId,omitempty"` // tool messages only: the call answered
	Metadata   map[string]any `json:"metadata,omitempty"`   // a JSON object, filterable by recall; read back, its numbers are json.Number, digit for digit as stored
	// CreatedAt is when the message was written (see the type's doc for its bounds).
	CreatedAt time.Time `json:"createdAt"`
	Tokens    int       `json:"tokens"`              // estimate: about 4 bytes a token
	Truncated bool      `json:"truncated,omitempty"` // Content is a bounded summary; the full text is stored by reference
	// Malformed, set by reads only, holds the stored text of tool_calls or
	// metadata that does not read as their types (written outside mnemo);
	// nil for every message mnemo wrote. Append ignores it.
	Malformed *Malformed `json:"malformed,omitempty"`
}

// ToolCall is one function call requested by an assistant message.
type ToolCall struct {
	// ID is the call's id, which the answering tool message's ToolCallID names.
	ID string `json:"id"`
	// Name is the function called.
	Name string `json:"name"`
	// Arguments are a JSON object giving each key once, or a string of a
	// model's text that is no such object. Append stores what
	// ToolCallArgumentsOf reads in them: nil (left out) and JSON null as
	// {} (no arguments), a string holding an object as that object; as
	// given otherwise, compact, "<", ">" and "&" unescaped. A re-send
	// under the message's id is compared by JSON value (docs/library.md).
	Arguments json.RawMessage `json:"arguments,omitempty" jsonschema:"oneof_type=object;string;null"`
}
