package recall

import "time"

// Doc is recall's view of one stored message: what the lexical index
// analyses, what filters see and what range expansion orders by. The engine
// builds it from the messages table.
type Doc struct {
	// ID is the message's id.
	ID string
	// ThreadID is the message's thread.
	ThreadID string
	// ResourceID is the thread's resource: the index's shard.
	ResourceID string
	// Seq is the message's 1-based seq in its thread (range expansion orders by it).
	Seq  int64
	Role string // "user", "assistant" or "tool"
	Name string // speaker or tool name; indexed with the content
	// Content is the text indexed.
	Content string
	// Metadata is the message's metadata object as decoded by encoding/json
	// (numbers are float64). Filters reach it as "metadata.<key>"; a dotted
	// key reaches into nested objects.
	Metadata map[string]any
	// CreatedAt is the message's time (filters: createdAt; dates: its day in the resource's zone).
	CreatedAt time.Time
}

// Text is the text the lexical channel indexes and the embedder embeds: the
// speaker name, when set, then the content ("Caroline: I went to …"), so that
// questions naming a speaker find that speaker's turns.
func (d *Doc) Text() string {
	if d.Name == "" {
		return d.Content
	}
	return d.Name + ": " + d.Content
}
