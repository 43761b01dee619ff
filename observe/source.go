package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/mnemo-go/mnemo/internal/tokens"
)

// Turn is one stored message as the observer sees it. The engine adapts its
// own Message type to it.
type Turn struct {
	// ID is the message's id.
	ID string
	// ThreadID is the message's thread.
	ThreadID string
	// ResourceID is the thread's resource.
	ResourceID string
	// Seq is the message's 1-based seq in its thread.
	Seq  int64
	Role string // "user", "assistant" or "tool"
	Name string // speaker or tool name; may be empty
	// Content is the message's text, as stored (redacted).
	Content    string
	ToolCalls  []ToolCall // assistant turns only
	ToolCallID string     // tool turns only: the call answered
	Tokens     int        // stored estimate; 0 means estimate from Content, Name and ToolCalls
	// CreatedAt is the message's time.
	CreatedAt time.Time
}

// ToolCall is one function call requested by an assistant turn.
type ToolCall struct {
	// ID is the call's id.
	ID string
	// Name is the function called.
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

// PageSource is a Source that also reads a thread a page at a time. The
// observer reads a thread's unobserved turns (Plan, Observe) and the rest of
// a thread after a range (ObserveRange) through MessagesPage when its
// Source has it, 1000 turns at a time, holding a page, the next
// chunk (or the range) and two numbers for each of the newest
// max(RecentN, MaxPendingTurns) turns instead of the whole thread; from a
// plain Source it reads them at once. The engine's Source is a PageSource.
type PageSource interface {
	Source
	// MessagesPage returns the limit (>= 1) turns of threadID with the
	// lowest seqs >= fromSeq, in seq order: fewer only at the thread's end.
	// An unknown thread yields no turns and no error.
	MessagesPage(ctx context.Context, threadID string, fromSeq int64, limit int) ([]Turn, error)
}

// pageTurns is how many turns the observer reads at a time from a
// PageSource (a variable for tests). Every page is a query: on a thread of
// 20,000 turns pages of 100 cost the plan a quarter more CPU than one
// read of them all, pages of 1000 about 7 % (engine BenchmarkObservePlan,
// BENCHMARKS.md).
var pageTurns = 1000

// eachTurn calls fn with each turn of threadID with seq >= fromSeq, in seq
// order: a page at a time from a PageSource, else all read at once.
func eachTurn(ctx context.Context, src Source, threadID string, fromSeq int64, fn func(Turn)) error {
	ps, ok := src.(PageSource)
	if !ok {
		turns, err := src.Messages(ctx, threadID, fromSeq, math.MaxInt64)
		if err != nil {
			return fmt.Errorf("observe: read %s: %w", threadID, err)
		}
		for _, t := range turns {
			fn(t)
		}
		return nil
	}
	for {
		page, err := ps.MessagesPage(ctx, threadID, fromSeq, pageTurns)
		if err != nil {
			return fmt.Errorf("observe: read %s: %w", threadID, err)
		}
		for _, t := range page {
			fn(t)
		}
		if len(page) < pageTurns {
			return nil
		}
		last := page[len(page)-1].Seq
		if last < fromSeq {
			return fmt.Errorf("observe: read %s: a page from seq %d ends at seq %d", threadID, fromSeq, last)
		}
		if last == math.MaxInt64 {
			return nil
		}
		fromSeq = last + 1
	}
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
