package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-go/mnemo/internal/msgstore"
)

// Thread is a thread's metadata. It never carries message content.
type Thread struct {
	// ID is the thread's id (ValidID).
	ID string `json:"id"`
	// ResourceID is the resource (user, tenant) the thread belongs to; fixed by its first append.
	ResourceID string `json:"resourceId"`
	// Title is the AppendRequest.Title of the append that created the
	// thread (a later append's is ignored); "" for none.
	Title string `json:"title,omitempty"`
	// MessageCount counts its stored messages.
	MessageCount int64 `json:"messageCount"`
	// LastSeq is the seq of its newest message (0 when it holds none).
	LastSeq int64 `json:"lastSeq"`
	// CreatedAt is when its first append was stored (the engine's clock, UTC).
	CreatedAt time.Time `json:"createdAt"`
	// UpdatedAt is its newest stored message's time (the latest
	// Message.CreatedAt, which an append may give; the thread's CreatedAt
	// when it holds none, e.g. after an erasure of every message).
	UpdatedAt time.Time `json:"updatedAt"`
	// LastActiveAt is the engine's clock at the thread's latest stored
	// append; idle expiry counts from it (Lifecycle.IdleTTL, Expire).
	LastActiveAt time.Time `json:"lastActiveAt"`
	// Bytes is the size of its messages as stored (what quotas count).
	Bytes int64 `json:"bytes"`
	// IdleTTL is the thread's own idle lifetime (SetIdleTTL): zero means
	// the configured default, negative means it never expires.
	IdleTTL time.Duration `json:"idleTtlNanos,omitempty"`
}

// GetThread returns the thread's metadata, or ErrThreadNotFound for a
// well-formed id no thread has. An id no thread can have (ValidID: empty,
// past 128 bytes, NUL, invalid UTF-8, any byte outside [A-Za-z0-9_.:@-])
// is a *ValidationError on "threadId", as Append's. "." and "..", which
// Append refuses (ValidNewID), are looked up: a store written before may
// hold them.
func (e *Engine) GetThread(ctx context.Context, threadID string) (*Thread, error) {
	if !ValidID(threadID) {
		return nil, badID(-1, "threadId", threadID, false)
	}
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	t, err := e.ms.Thread(ctx, threadID)
	if errors.Is(err, msgstore.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrThreadNotFound, threadID)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	th := Thread(t)
	return &th, nil
}

// ListThreads returns the threads of resourceID (all threads when empty),
// ordered by resource, then by the time of their first message, then id
// (resources and ids in byte order on both backends). It returns metadata
// only, never content, but all of it at once: the slice holds every thread
// asked for. A listing that may be long reads it a thread at a time with
// EachThread (a CLI) or a page at a time with ThreadsPage (a service).
// A resourceID no thread can have (ValidID) is a *ValidationError on
// resourceId.
func (e *Engine) ListThreads(ctx context.Context, resourceID string) ([]Thread, error) {
	var out []Thread
	err := e.EachThread(ctx, resourceID, func(t Thread) error {
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachThread calls fn with each thread of resourceID (all threads when
// empty), in ListThreads' order, read by one query a row at a time: the
// whole listing in one pass over one snapshot of the store (a thread
// created or erased meanwhile is listed or not, never twice, and never
// makes another one skipped), holding one thread in memory (ThreadsPage
// gives the same order a page at a time, each page a query of its own).
// The query stays open
// while fn runs (on SQLite a reader, which does not block writers). It
// stops at fn's first error and returns it; ErrClosed once closed; a
// *ValidationError on resourceId, before fn is called, for a resourceID
// no thread can have (ValidID).
func (e *Engine) EachThread(ctx context.Context, resourceID string, fn func(Thread) error) error {
	if resourceID != "" && !ValidID(resourceID) {
		return badID(-1, "resourceId", resourceID, false)
	}
	if err := e.checkOpen(ctx); err != nil {
		return err
	}
	var fnErr error
	err := e.ms.EachThread(ctx, resourceID, func(t msgstore.Thread) error {
		fnErr = fn(Thread(t))
		return fnErr
	})
	if err != nil && fnErr == nil {
		return fmt.Errorf("engine: %w", err)
	}
	return err
}

// ReservedIDs returns the ids of the threads stored under an id beginning
// with TombstonePrefix, and the resources of the threads whose resource id
// begins so, each in byte order and once: ids that new data may no longer
// use (ValidNewID) but a store written before may hold (mnemo check notes
// them). It reads only those threads' rows (a range of an index in byte
// order; on Postgres schema version 8's indexes), not every thread.
// Errors: ErrClosed; the database's error.
func (e *Engine) ReservedIDs(ctx context.Context) (threads, resources []string, err error) {
	if err := e.checkOpen(ctx); err != nil {
		return nil, nil, err
	}
	threads, resources, err = e.ms.ReservedIDs(ctx, TombstonePrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("engine: %w", err)
	}
	return threads, resources, nil
}

// messageFromRow decodes a stored row into a Message: the one place the
// engine turns the tool_calls and metadata columns into its types. A
// column that does not read as its type (written outside mnemo) fails no
// read: the message carries its stored text in Malformed. The error is
// always nil.
func messageFromRow(r msgstore.Message) (Message, error) {
	m := Message{ID: r.ID, ThreadID: r.ThreadID, ResourceID: r.ResourceID, Seq: r.Seq, Role: r.Role, Content: r.Content,
		Name: r.Name, ToolCallID: r.ToolCallID, CreatedAt: r.CreatedAt, Tokens: r.Tokens, Truncated: r.Truncated}
	// Decoded into locals, not m's fields: taking m's field addresses for
	// json.Unmarshal moved every m to the heap (issue 14's allocations).
	var bad Malformed
	if r.ToolCalls != "" {
		calls, whole := decodeToolCalls(r.ToolCalls)
		m.ToolCalls = calls
		if !whole {
			bad.ToolCalls = r.ToolCalls
		}
	}
	if r.Metadata != "" && r.Metadata != "{}" {
		md, err := decodeMetadata([]byte(r.Metadata))
		m.Metadata = md
		if err != nil {
			bad.Metadata = r.Metadata
		}
	}
	if bad != (Malformed{}) {
		m.Malformed = &bad
	}
	return m, nil
}

// decodeMetadata decodes a stored metadata object with its numbers as
// json.Number, exactly as written: into float64, an integer past 2^53 (a
// 64-bit id) came back as another number, and a message re-sent as read
// was ErrConflict.
func decodeMetadata(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var md map[string]any
	if err := dec.Decode(&md); err != nil {
		return nil, err
	}
	return md, nil
}

// messagesFromRows decodes rows in order; err, when not nil, is returned
// first (the store's read error).
func messagesFromRows(rs []msgstore.Message, err error) ([]Message, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Message, len(rs))
	for i, r := range rs {
		if out[i], err = messageFromRow(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Messages returns the thread's messages with fromSeq <= seq <= toSeq in seq
// order; toSeq <= 0 means to the end. It loads the whole range at once
// (fromSeq 1, toSeq 0: the whole thread, content included): for a range
// that may be long, read it a page at a time with MessagesPage. It returns
// ErrThreadNotFound for an unknown thread.
func (e *Engine) Messages(ctx context.Context, threadID string, fromSeq, toSeq int64) ([]Message, error) {
	if _, err := e.GetThread(ctx, threadID); err != nil {
		return nil, err
	}
	if toSeq <= 0 {
		toSeq = 1<<63 - 1
	}
	ms, err := messagesFromRows(e.ms.Messages(ctx, threadID, fromSeq, toSeq))
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return ms, nil
}

// MessagesByID returns the stored messages with the given ids, in the order
// asked; well-formed ids that are not stored are left out (no ids: an empty
// slice). When resourceID is not empty, messages of other resources are
// left out too, so a fetch by id never crosses resources. An id no message
// can have (ValidID) is a *ValidationError on "ids[i]" (i its index),
// a malformed non-empty resourceID one on "resourceId"; nothing is read.
func (e *Engine) MessagesByID(ctx context.Context, resourceID string, ids ...string) ([]Message, error) {
	if resourceID != "" && !ValidID(resourceID) {
		return nil, badID(-1, "resourceId", resourceID, false)
	}
	for i, id := range ids {
		if !ValidID(id) {
			return nil, badID(-1, fmt.Sprintf("ids[%d]", i), id, false)
		}
	}
	if err := e.checkOpen(ctx); err != nil {
		return nil, err
	}
	return e.messagesByID(ctx, resourceID, ids)
}

// messagesByID is MessagesByID once Close has begun too: the drainer's
// batch in flight reads its messages with it (Close waits for that batch).
func (e *Engine) messagesByID(ctx context.Context, resourceID string, ids []string) ([]Message, error) {
	if len(ids) == 0 {
		return []Message{}, nil
	}
	ms, err := messagesFromRows(e.ms.MessagesByID(ctx, resourceID, ids))
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if ms == nil {
		ms = []Message{}
	}
	return ms, nil
}

// FullContent returns a message's full content: for a large tool result
// stored by reference, the whole result; otherwise the stored content.
// It reads any resource's message (the id is global to the data
// directory): check the owner before showing it to a tenant. It returns
// an error wrapping ErrMessageNotFound when no message has the id, and a
// *ValidationError on messageId when no message can have it (ValidID).
func (e *Engine) FullContent(ctx context.Context, messageID string) (string, error) {
	if !ValidID(messageID) {
		return "", badID(-1, "messageId", messageID, false)
	}
	if err := e.checkOpen(ctx); err != nil {
		return "", err
	}
	s, err := e.ms.FullContent(ctx, messageID)
	if errors.Is(err, msgstore.ErrNotFound) {
		return "", fmt.Errorf("%w: %q", ErrMessageNotFound, messageID)
	}
	return s, err
}

// recentMessages returns the last n messages of the thread in seq order,
// and the bytes of their text (msgstore.Message.Size). They are read
// within maxBytes of text (<= 0: no bound): more is an
// *AnswerTooLargeError naming recentN.
func (e *Engine) recentMessages(ctx context.Context, threadID string, n, maxBytes int) ([]Message, int, error) {
	if n <= 0 {
		return nil, 0, nil
	}
	rows, err := e.ms.RecentWithin(ctx, threadID, n, maxBytes)
	if errors.Is(err, msgstore.ErrTooLarge) {
		return nil, 0, &AnswerTooLargeError{Limit: e.limits.MaxAnswerBytes, Fields: []string{"recentN"}}
	}
	size := 0
	for _, r := range rows {
		size += r.Size()
	}
	ms, err := messagesFromRows(rows, err)
	if err != nil {
		return nil, 0, fmt.Errorf("engine: %w", err)
	}
	return ms, size, nil
}
