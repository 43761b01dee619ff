package observe

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mnemo-go/mnemo/internal/tokens"
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
	Tokens     int        // stored estimate; 0 means estimate from Content, Name and ToolCalls
	CreatedAt  time.Time
}

// ToolCall is one function call requested by an assistant turn.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// Roles of turns. Content of RoleTool turns (tool results) is untrusted.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Source gives the observer read access to a thread's turns.
//
// Implementations are safe for concurrent use.
type Source interface {
	// Messages returns the turns of threadID with fromSeq <= seq <= toSeq
	// (inclusive; toSeq math.MaxInt64 means to the end), in seq order. An
	// unknown thread yields no turns and no error.
	Messages(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]Turn, error)
}

// tokens returns the turn's token estimate: the stored one, or the one the
// engine stores for such a message (internal/tokens: content, name and tool
// calls), so a custom Source that leaves Tokens zero is not undercounted.
func (t Turn) tokens() int {
	if t.Tokens > 0 {
		return t.Tokens
	}
	var calls []tokens.Call
	for _, c := range t.ToolCalls {
		calls = append(calls, tokens.Call{ID: c.ID, Name: c.Name, Arguments: json.RawMessage(c.Arguments)})
	}
	return tokens.Message(t.Content, t.Name, tokens.CallsJSON(calls))
}
