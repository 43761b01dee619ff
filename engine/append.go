package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemo-go/mnemo/internal/jsonkey"
	"github.com/mnemo-go/mnemo/internal/msgstore"
	"github.com/mnemo-go/mnemo/internal/store"
	"github.com/mnemo-go/mnemo/internal/tokens"
)

// AppendRequest adds messages to a thread.
type AppendRequest struct {
	// ThreadID names the thread; it is created on first use. Required.
	// It and every id the request gives (ResourceID, each message's and
	// each tool call's) must be ValidNewID, not "." or "..": a thread a
	// store written before that rule holds under such an id can be read,
	// exported and erased, not appended to.
	ThreadID string
	// ResourceID is the owner of the thread (a user or tenant). Required when
	// the thread is new; when given for an existing thread it must match.
	ResourceID string
	// Title is stored when the thread is created; ignored afterwards. Its
	// first 256 bytes are kept (cut at a character, "…" added); invalid
	// UTF-8 or a NUL byte is a *ValidationError on title.
	Title string
	// Messages are stored in order, all or none. Each may carry an ID; one
	// is generated (a ULID) when empty.
	Messages []Message
}

// AppendResult reports what Append stored.
type AppendResult struct {
	// ThreadID is the request's thread.
	ThreadID string
	// ResourceID is the thread's resource, as stored (the request may leave it empty for a stored thread).
	ResourceID string
	// Seqs holds the seq of each request message, in request order; a
	// message that was already stored (same id, content and metadata)
	// reports its stored seq.
	Seqs []int64
	// IDs holds the id of each request message (generated ids included).
	IDs []string
	// Stored counts the messages written now; Duplicates those already stored.
	Stored, Duplicates int
	// Created reports that the thread was created by this call (a thread
	// whose id was expired and is now fresh included).
	Created bool
	// Evicted are the threads erased to bring the resource or the store
	// back within Config.Lifecycle.Quota after this append (never this
	// one), least recently active first.
	Evicted []string
	// EvictedResources holds the resource of each Evicted thread, in the
	// same order: a store-wide bound (Quota.StoreBytes, StoreMessages)
	// evicts other resources' threads too, which a caller serving several
	// tenants must not show to this one.
	EvictedResources []string
	// Unpaired are the request's tool messages that answer no call of the
	// thread (UnpairedResult), in request order, each once; nil when none.
	// They are stored, and every context leaves them out. Checked in the
	// append's transaction, against the thread as the append commits it
	// (an erasure or expiry committed later does not change it), looking
	// in the store at most MaxPairLookups times, each through the
	// UnpairedWindow messages before the result.
	Unpaired []UnpairedResult
	// UnpairedUnchecked counts the request's tool messages not checked
	// for Unpaired: past MaxPairLookups lookups, or whose call is not
	// among the UnpairedWindow messages before them in a longer thread
	// (with no earlier result for their id there); 0 when every one was.
	UnpairedUnchecked int
}

// Append validates, redacts and stores req.Messages at the end of the thread
// in one transaction, assigning seqs, and queues them for indexing.
//
// Errors: a *ValidationError (errors.Is ErrInvalidInput) naming the message
// index and field (also for a message whose text as a whole passes
// Config.Limits.MaxAnswerBytes: no answer could read it); ErrResourceMismatch when the thread belongs to another
// resource; ErrConflict when a message id is stored with other content,
// other metadata or in another thread; a *ValidationError on
// messages[i].id matching ErrDuplicateID when req gives an id twice with
// other content or metadata (the same message twice is stored once); a
// *DispatchPendingError (errors.Is ErrDispatchPending) when a new assistant
// message makes a call whose id an earlier dispatch of the thread, still
// pending, makes (settle that dispatch first); ErrDatabaseCorrupt once
// SQLite has reported a damaged page of mnemo.db to any of the engine's
// reads or writes since Open (Ping's error): the file does not heal, and
// its remedy, a backup restored, would drop what was appended since, so
// nothing more is taken until the engine is closed (restore or salvage
// the file, then Open again; erasures and expiry still run). On any
// error nothing of the request is stored.
func (e *Engine) Append(ctx context.Context, req AppendRequest) (*AppendResult, error) {
	return e.appendWith(ctx, req, appendHooks{})
}

// appendHooks extend an append's transaction (the dispatch journal,
// dispatch.go): before runs first, after runs once the messages are stored;
// an error from either rolls the whole append back.
type appendHooks struct {
	before, after func(ctx context.Context, tx *store.Tx, res *AppendResult) error
	// stored reports that before checks the request's thread is stored,
	// the resource's (a settlement: its dispatch's thread), so the two ids
	// name stored data and are held to ValidID, not ValidNewID: a dispatch
	// begun on a thread "..", which a store written before ValidNewID may
	// hold, stays settleable. The messages' ids stay ValidNewID.
	stored bool
}

// appendWith is Append with hooks in its transaction.
func (e *Engine) appendWith(ctx context.Context, req AppendRequest, hooks appendHooks) (*AppendResult, error) {
	if err := e.checkWritable(ctx); err != nil {
		return nil, err
	}
	req.Messages = append([]Message(nil), req.Messages...) // never alias the caller's slice
	storeArguments(req.Messages)
	if err := e.validateRequest(&req, hooks.stored); err != nil {
		return nil, err
	}
	now := e.now().UTC()
	rows := make([]row, len(req.Messages))
	for i := range req.Messages {
		r, err := e.prepare(i, req.Messages[i], now)
		if err != nil {
			return nil, err
		}
		rows[i] = r
	}
	res := &AppendResult{ThreadID: req.ThreadID, Seqs: make([]int64, len(rows)), IDs: make([]string, len(rows))}
	// The expiry of the thread and the quota's evictions purge once, before
	// the Append returns (sweep.go).
	sw := e.newSweep()
	defer sw.finishLogged(ctx, "append")
	for attempt := 0; ; attempt++ {
		err := e.tx(ctx, func(tx *store.Tx) error {
			*res = AppendResult{ThreadID: req.ThreadID, Seqs: res.Seqs, IDs: res.IDs}
			if hooks.before != nil {
				if err := hooks.before(ctx, tx, res); err != nil {
					return err
				}
			}
			if err := e.appendTx(ctx, tx, &req, rows, now, res); err != nil {
				return err
			}
			if hooks.after != nil {
				if err := hooks.after(ctx, tx, res); err != nil {
					return err
				}
			}
			var err error
			res.Unpaired, res.UnpairedUnchecked, err = e.unpairedResults(ctx, tx, req.ThreadID, rows, res.Seqs) // unpaired.go
			return err
		})
		if err != nil {
			e.forgetFresh(rows)
		}
		var exp *expiredError
		if !errors.As(err, &exp) || attempt > 2 {
			if err != nil {
				return nil, err
			}
			break
		}
		if err := e.expireForAppend(ctx, sw, req.ThreadID, exp.resource, now); err != nil {
			return nil, err
		}
	}
	if f := e.erasure.appended.Load(); f != nil {
		(*f)()
	}
	if res.Stored > 0 {
		e.kickOutbox()
		e.afterAppend(req.ThreadID)
		res.Evicted, res.EvictedResources = e.enforceQuota(ctx, sw, req.ThreadID, res.ResourceID)
	}
	return res, nil
}

// forgetFresh drops rows from the drainer's cache (fresh.go) after a
// transaction that put them did not commit.
func (e *Engine) forgetFresh(rows []row) {
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	e.idx.fresh.forget(ids)
}

// row is a message ready to store.
type row struct {
	Message
	toolCallsJSON []byte // nil when none
	metadataJSON  []byte
	full          string // the full tool result when Content is its summary
	digest        string
}

// prepare redacts, bounds and encodes one validated message.
func (e *Engine) prepare(i int, m Message, now time.Time) (row, error) {
	if m.ID == "" {
		m.ID = ulid.Make().String()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	m.Malformed = nil // a read's, never stored
	if err := checkNotFuture(i, &m, now); err != nil {
		return row{}, err
	}
	m.Content = e.redactor.Redact(m.Content)
	m.Name = e.redactor.Redact(m.Name)
	r := row{}
	if len(m.ToolCalls) > 0 {
		calls := make([]ToolCall, len(m.ToolCalls))
		for j, tc := range m.ToolCalls {
			// A function name cannot be redacted (the provider needs it
			// verbatim to pair the result), so one that holds a secret is
			// refused.
			if e.redactor.Redact(tc.Name) != tc.Name {
				return r, invalid(i, fmt.Sprintf("toolCalls[%d].name", j), "must not hold a secret (a function name cannot be redacted)")
			}
			tc.Arguments = redactJSON(e.redactor, tc.Arguments)
			calls[j] = tc
		}
		m.ToolCalls = calls
		// Without HTML escaping: json.Marshal stored "<b> & x" as
		// "\u003cb\u003e \u0026 x", which every read gave the model.
		b, err := jsonkey.Marshal(calls)
		if err != nil {
			return r, invalid(i, "toolCalls", "cannot encode: %v", err)
		}
		r.toolCallsJSON = b
	}
	r.metadataJSON = []byte("{}")
	if m.Metadata != nil {
		b, err := jsonkey.Marshal(m.Metadata)
		if err != nil {
			return r, invalid(i, "metadata", "cannot encode: %v", err)
		}
		b = redactJSON(e.redactor, b)
		md, err := decodeMetadata(b)
		if err != nil {
			return r, invalid(i, "metadata", "must be a JSON object")
		}
		m.Metadata = md // a fresh map: the caller's is never aliased
		r.metadataJSON = b
	}
	if m.Role == RoleTool && len(m.Content) > e.limits.ToolResultInlineBytes {
		r.full = m.Content
		m.Content = summarizeToolResult(m.Content, e.limits.ToolResultInlineBytes)
		m.Truncated = true
	}
	if err := e.checkAnswerBound(i, &m, r); err != nil {
		return r, err
	}
	m.Tokens = tokens.Message(m.Content, m.Name, r.toolCallsJSON)
	r.digest = digest(m.Role, r.fullContent(m.Content), m.Name, m.ToolCallID, r.toolCallsJSON)
	r.Message = m
	return r, nil
}

func (r row) fullContent(inline string) string {
	if r.full != "" {
		return r.full
	}
	return inline
}

// summarizeToolResult keeps the first part of a large tool result, cut at a
// UTF-8 boundary, and says how much was left out.
func summarizeToolResult(s string, limit int) string {
	cut := limit
	for cut > 0 && cut < len(s) && !isRuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n… [tool result truncated: %d of %d bytes shown; the full result is stored by reference]", s[:cut], cut, len(s))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// digest identifies a message's content for idempotent appends
// (msgstore.Digest): role, content (the full text for a large tool
// result), name, tool call id and tool calls, after redaction. The created
// time is not part of it, so a framework that re-sends a message with a
// new timestamp is not refused; metadata is compared on its own
// (appendTx), as stored JSON.
func digest(role, content, name, toolCallID string, calls []byte) string {
	return msgstore.Digest(role, content, name, toolCallID, calls)
}

// appendTx stores rows in the thread inside tx: it reads or creates the
// thread, stores the rows that are new and updates the thread's counters.
func (e *Engine) appendTx(ctx context.Context, tx *store.Tx, req *AppendRequest, rows []row, now time.Time, res *AppendResult) error {
	head, err := e.openThread(ctx, tx, req, rows, now, res)
	if err != nil {
		return err
	}
	res.ResourceID = head.ResourceID
	lastSeq, added, err := e.storeRows(ctx, tx, req.ThreadID, head, rows, now, res)
	if err != nil {
		return err
	}
	if err := e.refusePendingCalls(ctx, tx, req.ThreadID, rows, res.Seqs, head.LastSeq); err != nil { // dispatch_pending.go
		return err
	}
	if err := e.refuseOpenCalls(ctx, tx, req.ThreadID, rows, res.Seqs, head.LastSeq); err != nil { // dispatch_pending.go
		return err
	}
	if res.Stored == 0 {
		return nil
	}
	if e.onPostgres() {
		if err := e.indexLexical(ctx, tx, head, rows, res); err != nil { // postgres.go
			return err
		}
	}
	// updated_at is the time of the newest message.
	latest := rows[0].CreatedAt
	for _, r := range rows {
		if r.CreatedAt.After(latest) {
			latest = r.CreatedAt
		}
	}
	if err := e.ms.AdvanceThread(ctx, tx, msgstore.ThreadAdvance{ID: req.ThreadID, LastSeq: lastSeq, Stored: int64(res.Stored),
		Latest: latest, Active: now, Bytes: added}); err != nil {
		return fmt.Errorf("engine: update thread %s: %w", req.ThreadID, err)
	}
	if e.cfg.Lifecycle.Quota.Refuse {
		return e.refuseOverQuota(ctx, tx, head.ResourceID)
	}
	return nil
}

// openThread reads the thread's head, creating the thread when it is new
// (res.Created). It refuses another resource's thread, and returns an
// *expiredError for a thread whose idle lifetime has run out.
func (e *Engine) openThread(ctx context.Context, tx *store.Tx, req *AppendRequest, rows []row, now time.Time, res *AppendResult) (msgstore.ThreadHead, error) {
	head, ok, err := e.ms.ThreadHead(ctx, tx, req.ThreadID)
	switch {
	case err != nil:
		return head, fmt.Errorf("engine: read thread %s: %w", req.ThreadID, err)
	case !ok:
		if req.ResourceID == "" {
			return head, invalid(-1, "resourceId", "is required to create thread %q", req.ThreadID)
		}
		head = msgstore.ThreadHead{ResourceID: req.ResourceID}
		// A thread starts when its first message was said (imported history
		// keeps its own times).
		start := rows[0].CreatedAt
		if err := e.ms.CreateThread(ctx, tx, msgstore.NewThread{ID: req.ThreadID, ResourceID: head.ResourceID,
			Title: clip(e.redactor.Redact(req.Title), 256), Start: start, Active: now}); err != nil {
			return head, fmt.Errorf("engine: create thread %s: %w", req.ThreadID, err)
		}
		res.Created = true
	case req.ResourceID != "" && req.ResourceID != head.ResourceID:
		return head, notOwner(req.ThreadID, req.ResourceID)
	case due(e.idleTTL(head.IdleTTLMS), idleSince(now.UnixMilli(), head.LastActiveMS)):
		// A new turn on an expired thread starts a fresh one (Append
		// expires the old one and tries again).
		return head, &expiredError{resource: head.ResourceID}
	}
	return head, nil
}

// storeRows stores the rows not stored yet after head.LastSeq, queues them
// for indexing and fills res (seqs, ids, counts). A row whose id is stored
// (or repeated in rows) must be the same message: same digest and
// metadata, same thread; it reports its stored seq. It returns the new
// last seq and the bytes stored. The ids are looked up, and the new rows
// stored and queued, in a few multi-row statements (msgstore's LookupAll
// and InsertAll), not three statements a message.
func (e *Engine) storeRows(ctx context.Context, tx *store.Tx, thread string, head msgstore.ThreadHead, rows []row, now time.Time, res *AppendResult) (lastSeq, added int64, err error) {
	// Statements prepared once per connection (store.Stmts), not per call.
	ap, err := e.ms.Appender(ctx, tx)
	if err != nil {
		return 0, 0, fmt.Errorf("engine: %w", err)
	}
	inBatch := make(map[string]int, len(rows)) // id -> index in rows
	ids := make([]string, 0, len(rows))
	for i, r := range rows {
		if _, ok := inBatch[r.ID]; !ok {
			inBatch[r.ID] = i
			ids = append(ids, r.ID)
		}
	}
	stored, err := ap.LookupAll(ctx, ids)
	if err != nil {
		return 0, 0, fmt.Errorf("engine: look up messages: %w", err)
	}
	lastSeq = head.LastSeq
	// Sized for every row new (the usual append): grown by append they
	// were ~4 % of an import's allocations (issue 14).
	msgs := make([]msgstore.Message, 0, max(len(ids)-len(stored), 0))
	digests := make([]string, 0, cap(msgs))
	fresh := make([]int, 0, cap(msgs)) // indexes in rows of msgs
	for i, r := range rows {
		res.IDs[i] = r.ID
		if j := inBatch[r.ID]; j != i {
			if err := sameRow(i, j, rows[j], r); err != nil {
				return 0, 0, err
			}
			res.Seqs[i] = res.Seqs[j]
			res.Duplicates++
			continue
		}
		if st, ok := stored[r.ID]; ok {
			if err := sameStored(ctx, ap, i, thread, st, r); err != nil {
				return 0, 0, err
			}
			res.Seqs[i] = st.Seq
			res.Duplicates++
			continue
		}
		lastSeq++
		msgs = append(msgs, storedMessage(r, thread, head.ResourceID, lastSeq))
		digests = append(digests, r.digest)
		fresh = append(fresh, i)
		res.Seqs[i] = lastSeq
		res.Stored++
		added += r.messageBytes()
	}
	if err := storeNew(ctx, ap, rows, fresh, msgs, digests, now); err != nil {
		return 0, 0, err
	}
	if !e.onPostgres() {
		// For the drainer, inside the transaction (fresh.go); appendWith
		// forgets them when it does not commit.
		e.idx.fresh.put(msgs, func(k int) bool { return rows[fresh[k]].full != "" })
	}
	return lastSeq, added, nil
}

// storedMessage is row r as stored in thread at seq.
func storedMessage(r row, thread, resource string, seq int64) msgstore.Message {
	return msgstore.Message{ID: r.ID, ThreadID: thread, ResourceID: resource, Seq: seq, Role: r.Role, Content: r.Content,
		Name: r.Name, ToolCalls: string(r.toolCallsJSON), ToolCallID: r.ToolCallID, Metadata: string(r.metadataJSON),
		CreatedAt: r.CreatedAt, Tokens: r.Tokens}
}

// storeNew stores the new messages msgs (rows[fresh[k]] is msgs[k]) with
// their full results, and queues them for indexing.
func storeNew(ctx context.Context, ap *msgstore.Appender, rows []row, fresh []int, msgs []msgstore.Message, digests []string, now time.Time) error {
	if len(msgs) == 0 {
		return nil
	}
	if err := ap.InsertAll(ctx, msgs, digests, now); err != nil {
		return fmt.Errorf("engine: store %d messages: %w", len(msgs), err)
	}
	for _, i := range fresh {
		if rows[i].full == "" {
			continue
		}
		if err := ap.InsertBlob(ctx, rows[i].ID, rows[i].full); err != nil {
			return fmt.Errorf("engine: store messages[%d] full result: %w", i, err)
		}
	}
	return nil
}

// checkAnswerBound refuses message i when its stored text (content as
// stored inline, name, tool call id, tool calls and metadata as JSON:
// what Limits.MaxAnswerBytes counts of a row, msgstore.Message.Size) passes
// Limits.MaxAnswerBytes: an answer whose recent window or recall reached
// it could never be read, and while it was its thread's newest message no
// context of the thread loaded. Each field is within its own limit by
// then; the *ValidationError names the largest part.
func (e *Engine) checkAnswerBound(i int, m *Message, r row) error {
	meta := len(r.metadataJSON)
	if string(r.metadataJSON) == "{}" {
		meta = 0
	}
	size := len(m.Content) + len(m.Name) + len(m.ToolCallID) + len(r.toolCallsJSON) + meta
	if limit := e.limits.MaxAnswerBytes; size > limit {
		field, part := "content", len(m.Content)
		if len(r.toolCallsJSON) > part {
			field, part = "toolCalls", len(r.toolCallsJSON)
		}
		if meta > part {
			field = "metadata"
		}
		return invalid(i, field, "the message holds %d bytes (content %d, toolCalls %d and metadata %d as JSON), more than Limits.MaxAnswerBytes (%d), the most one answer reads: no context could hold it",
			size, len(m.Content), len(r.toolCallsJSON), meta, limit)
	}
	return nil
}
