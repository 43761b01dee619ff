package observe

import (
	"context"
	"time"
)

// Turn is one stored message as the observer sees it. The engine adapts its
// own Message type to it.
type Turn struct {
	ID         string
	ThreadID   string
	ResourceID string
	Seq        int64
	Role       string // "user", "assistant" or "tool"
	Name       string // speaker or tool name; may be empty
	Content    string
	ToolCalls  []ToolCall // assistant turns only
	ToolCallID string     // tool turns only: the call answered
	Tokens     int        // stored estimate; 0 means estimate from Content
	CreatedAt  time.Time
}

// ToolCall is one function call requested by an assistant turn.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// RoleTool is the role of a tool result; content of such turns is untrusted.
const RoleTool = "tool"

// Source gives the observer read access to a thread's turns.
//
// Implementations are safe for concurrent use.
type Source interface {
	// Messages returns the turns of threadID with fromSeq <= seq <= toSeq
	// (inclusive; toSeq math.MaxInt64 means to the end), in seq order. An
	// unknown thread yields no turns and no error.
	Messages(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]Turn, error)
}

// tokens returns the turn's token estimate: the stored one, or about four
// bytes a token, the same rule the engine uses when storing.
func (t Turn) tokens() int {
	if t.Tokens > 0 {
		return t.Tokens
	}
	return estimateTokens(t.Content)
}

func estimateTokens(s string) int { return (len(s) + 3) / 4 }
