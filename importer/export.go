package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/working"
)

// Source is what Export needs of an engine: *engine.Engine is one. Export
// calls it from one goroutine and returns its errors as they are.
type Source interface {
	ThreadsPage(ctx context.Context, req engine.ThreadsRequest) (*engine.ThreadPage, error)
	GetThread(ctx context.Context, threadID string) (*engine.Thread, error)
	MessagesPage(ctx context.Context, threadID string, req engine.PageRequest) (*engine.MessagePage, error)
	FullContent(ctx context.Context, messageID string) (string, error)
	StoredWorkingMode(ctx context.Context, key string) (mode working.Mode, ok bool, err error)
	WorkingMemoryResources(ctx context.Context, after string, limit int) ([]string, error)
	Dispatches(ctx context.Context, req engine.DispatchesRequest) ([]engine.Dispatch, error)
	WorkingMemoryOpener
}

var _ Source = (*engine.Engine)(nil)

// ExportOptions choose what Export writes. The zero value writes every
// thread of every resource.
type ExportOptions struct {
	// Resource, when set, writes only that resource's threads and state
	// (ErrResourceNotFound when it has neither).
	Resource string
	// Thread, when set, writes only that thread (ErrThreadNotFound when
	// it is not stored); Resource, when also set, must be its resource
	// (engine.ErrResourceMismatch otherwise).
	Thread string
	// PageSize is how many threads, and how many messages of a thread, are
	// read at a time: 1 to engine.MaxPageLimit; 0 means
	// engine.MaxPageLimit.
	PageSize int
	// OnNUL, when set, is called for each stored value Export wrote with
	// its NUL characters (U+0000, which no store accepts now) as U+FFFD
	// (exportnul.go), as it writes the line; ExportReport.NULReplaced
	// counts them either way.
	OnNUL func(NULReplaced)
	// OnMalformed, when set, is called for each stored tool_calls or
	// metadata that does not read as its type (engine.Message.Malformed:
	// a row written outside mnemo) and that Export wrote as text
	// (exportmalformed.go), as it writes the line;
	// ExportReport.Malformed counts them either way.
	OnMalformed func(MalformedWritten)
}

// ExportReport counts what Export wrote.
type ExportReport struct {
	// Resources counts the distinct resources written: of a thread, or
	// of a resource's working-memory state (a resource with no thread).
	Resources int `json:"resources"`
	// Threads counts the threads written (one with no message is not).
	Threads int `json:"threads"`
	// Messages counts the lines written, one a message.
	Messages int `json:"messages"`
	// WorkingMemory counts the working-memory states written ("working_memory" lines).
	WorkingMemory int `json:"workingMemory"`
	// Dispatches counts the dispatches written ("dispatch" lines), of
	// unknown outcome or settled.
	Dispatches int `json:"dispatches"`
	// NULReplaced counts the values written with their NUL characters
	// (U+0000) as U+FFFD (ExportOptions.OnNUL names each).
	NULReplaced int `json:"nulReplaced,omitempty"`
	// Malformed counts the stored values not of their types written as
	// text (ExportOptions.OnMalformed names each).
	Malformed int `json:"malformed,omitempty"`
}

// exportRecord is the JSONL record Export writes for a message: the
// members of jsonlRecord mnemo stores, tool calls in mnemo's shape, the
// thread's title and own idle lifetime on its first line only.
type exportRecord struct {
	Thread     string         `json:"thread"`
	Resource   string         `json:"resource"`
	Title      string         `json:"title,omitempty"`
	IdleTTL    string         `json:"idle_ttl,omitempty"`
	ID         string         `json:"id"`
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []exportCall   `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	CreatedAt  string         `json:"created_at"`
}

// exportCall is a tool call in mnemo's shape: its arguments as stored
// (an object, or a string of a model's text), which Import reads back
// as the same value (engine.ToolCallArgumentsOf).
type exportCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Export writes the stored threads opt chooses to w as mnemo's JSONL
// format, which Import reads back: one line a message, in the order of
// engine.ListThreads (by resource, then thread creation, then id) and
// each thread's messages in seq order, with their ids, resource, role,
// content (a tool result stored by reference whole: FullContent), name,
// tool calls, tool_call_id, metadata and created_at (RFC 3339, UTC, to the
// millisecond the store keeps), and the thread's title and own idle
// lifetime (SetIdleTTL: "idle_ttl", "never" or "72h0m0s") on its first
// line.
// An erased message or thread is not written (nothing of it is stored
// but its tombstone). Seqs are not written: an import numbers a thread's
// messages from 1, so a thread with erased seqs is numbered without the
// gaps. The current working-memory state of each thread written follows
// its messages, and that of each resource its threads, as
// "working_memory" lines (itemWorkingMemory); the state of a resource
// with no thread comes after every thread (in a full export, in byte
// order of the resource ids: engine.WorkingMemoryResources) or alone
// (opt.Resource);
// the dispatches of each thread written (engine.Dispatches: pending,
// settled or answered) follow its messages, before its state, as
// "dispatch" lines (itemDispatch), in byte order of run id, then call id;
// working-memory history, observations, runs and memctx records are not
// written (docs/cli.md, mnemo export). A NUL character (U+0000) a build
// before walk53 stored, which no store accepts now, is written as U+FFFD
// and the value named to opt.OnNUL (exportnul.go); tool calls or metadata
// a row written outside mnemo holds not of their types are written as
// text and named to opt.OnMalformed (exportmalformed.go).
//
// It reads a page of threads (engine.ThreadsPage, keyset pages) and a page
// of messages at a time, never the whole store, and honours ctx between
// pages. It is no snapshot: a thread appended to or erased
// meanwhile is written as far as it was read (not at all when erased
// before its first page was read), and one created after its place in
// the order was read is not written.
//
// Errors: ctx's; w's; ErrResourceNotFound for an opt.Resource (without
// opt.Thread) with no thread and no working-memory state, nothing written;
// the engine's (ErrThreadNotFound for an opt.Thread not stored, a *engine.ValidationError for an id no thread or resource
// can have or a PageSize out of range), with the report of what was
// written before.
func Export(ctx context.Context, src Source, w io.Writer, opt ExportOptions) (*ExportReport, error) {
	x := &exporter{ctx: ctx, src: src, rep: &ExportReport{}, page: opt.PageSize, onNUL: opt.OnNUL, onMalformed: opt.OnMalformed}
	if x.page == 0 {
		x.page = engine.MaxPageLimit
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	x.enc = json.NewEncoder(bw)
	x.enc.SetEscapeHTML(false) // "<", ">" and "&" as stored, not \u003c
	err := x.run(opt)
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("importer: export: %w", ferr)
	}
	return x.rep, err
}

// exporter is one Export.
type exporter struct {
	ctx  context.Context
	src  Source
	enc  *json.Encoder
	rep  *ExportReport
	page int
	// onNUL is ExportOptions.OnNUL (nil: none).
	onNUL func(NULReplaced)
	// onMalformed is ExportOptions.OnMalformed (nil: none).
	onMalformed func(MalformedWritten)
	last        string // the resource of the last thread or state written (the order groups threads by resource)
	// threadFrom is x.rep.Messages when the thread being written began.
	threadFrom int
	// seen holds the resources whose state was looked for after their
	// threads, in a full export (nil otherwise): the states of the others
	// (with no thread) are written at the end (lone).
	seen map[string]bool
}

// run writes the threads opt chooses.
func (x *exporter) run(opt ExportOptions) error {
	if opt.Thread != "" {
		t, err := x.src.GetThread(x.ctx, opt.Thread)
		if err != nil {
			return err
		}
		if opt.Resource != "" && t.ResourceID != opt.Resource {
			return fmt.Errorf("%w: %q is not a thread of resource %q", engine.ErrResourceMismatch, opt.Thread, opt.Resource)
		}
		return x.thread(*t)
	}
	req := engine.ThreadsRequest{Limit: x.page}
	if opt.Resource != "" {
		req.Resources = []string{opt.Resource}
	} else {
		x.seen = map[string]bool{}
	}
	cur := opt.Resource // the resource whose threads are being written
	seen := false       // a thread of opt.Resource was listed
	for {
		p, err := x.src.ThreadsPage(x.ctx, req)
		if err != nil {
			return err
		}
		seen = seen || len(p.Threads) > 0
		for _, t := range p.Threads {
			if cur != "" && t.ResourceID != cur {
				if err := x.state(cur, ""); err != nil {
					return err
				}
			}
			cur = t.ResourceID
			if err := x.thread(t); err != nil {
				return err
			}
		}
		if p.NextCursor == "" {
			break
		}
		req.Cursor = p.NextCursor
	}
	if cur != "" {
		if err := x.state(cur, ""); err != nil {
			return err
		}
	}
	switch {
	case x.seen != nil:
		return x.lone()
	case !seen && x.rep.WorkingMemory == 0:
		return fmt.Errorf("%w: %q: no thread and no working-memory state", ErrResourceNotFound, opt.Resource)
	}
	return nil
}

// lone writes the states of the resources that have one and no thread
// written (not in x.seen), a page of resource ids at a time.
func (x *exporter) lone() error {
	after := ""
	for {
		ids, err := x.src.WorkingMemoryResources(x.ctx, after, x.page)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if !x.seen[id] {
				if err := x.state(id, ""); err != nil {
					return err
				}
			}
		}
		if len(ids) < x.page {
			return nil
		}
		after = ids[len(ids)-1]
	}
}

// ErrResourceNotFound is Export's error for an ExportOptions.Resource
// that has no thread and no working-memory state: a resource exists by
// them, and a mistyped id wrote an empty export that looked like success.
// Nothing was written then.
var ErrResourceNotFound = errors.New("importer: resource not found")

// state writes the working-memory state of thread, or of resource when
// thread is "", as a "working_memory" line, when one is stored.
func (x *exporter) state(resource, thread string) error {
	key, scope := working.ResourceKey(resource), working.ScopeResource
	if thread != "" {
		key, scope = working.ThreadKey(thread), working.ScopeThread
	} else if x.seen != nil {
		x.seen[resource] = true
	}
	mode, ok, err := x.src.StoredWorkingMode(x.ctx, key)
	if err != nil || !ok {
		return err
	}
	cfg := working.Config{Scope: scope, Mode: mode}
	if mode == working.ModeSchema {
		cfg.Schema = json.RawMessage(`{"type":"object"}`) // read, not validated
	}
	mem, err := x.src.OpenWorkingMemory(cfg)
	if err != nil {
		return err
	}
	st, err := mem.Get(x.ctx, key)
	if err != nil || st.Version == 0 {
		return err
	}
	rec := wmRecord{Type: itemWorkingMemory, Thread: thread, Resource: resource, Mode: string(mode), Content: st.Content}
	var n int
	if rec.Content, n = replaceNUL(rec.Content); n > 0 {
		x.nulReplaced(NULReplaced{Resource: resource, Thread: thread, Field: "working_memory", Count: n})
	}
	if err := x.enc.Encode(rec); err != nil {
		return fmt.Errorf("importer: export working memory %s: %w", key, err)
	}
	x.rep.WorkingMemory++
	if x.last != resource { // a resource with no thread written
		x.last = resource
		x.rep.Resources++
	}
	return nil
}

// wmRecord is the "working_memory" line Export writes for a state.
type wmRecord struct {
	Type     string `json:"type"`
	Thread   string `json:"thread,omitempty"`
	Resource string `json:"resource"`
	Mode     string `json:"mode"`
	Content  string `json:"content"`
}

// thread writes t's messages, a page at a time; a thread erased
// meanwhile is written as far as it was read (not at all when erased
// before its first page).
func (x *exporter) thread(t engine.Thread) error {
	req := engine.PageRequest{Limit: x.page}
	first := true
	for {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		p, err := x.src.MessagesPage(x.ctx, t.ID, req)
		if errors.Is(err, engine.ErrThreadNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		for _, m := range p.Messages {
			title := ""
			if first {
				title, first = t.Title, false
				x.threadFrom = x.rep.Messages
				x.rep.Threads++
				if x.rep.Threads == 1 || t.ResourceID != x.last {
					x.last = t.ResourceID
					x.rep.Resources++
				}
			}
			if err := x.message(t, title, m); err != nil {
				return err
			}
		}
		if p.NextFromSeq == 0 && first {
			return nil // no message: the thread is not written
		} else if p.NextFromSeq == 0 {
			if err := x.dispatches(t); err != nil {
				return err
			}
			return x.state(t.ResourceID, t.ID)
		}
		req.FromSeq = p.NextFromSeq
	}
}

// message writes one message's line.
func (x *exporter) message(t engine.Thread, title string, m engine.Message) error {
	if m.Truncated {
		full, err := x.src.FullContent(x.ctx, m.ID)
		if err != nil {
			return err
		}
		m.Content = full
	}
	rec := newExportRecord(t.ID, t.ResourceID, title, m)
	if x.rep.Messages == x.threadFrom {
		rec.IdleTTL = idleTTLText(t.IdleTTL) // on the thread's first line
	}
	writeMalformed(&rec, m, x.malformed)
	scrubNUL(&rec, m.Seq, x.nulReplaced)
	if err := x.enc.Encode(rec); err != nil {
		return fmt.Errorf("importer: export message %s: %w", m.ID, err)
	}
	x.rep.Messages++
	return nil
}

// nulReplaced counts r and passes it to ExportOptions.OnNUL.
func (x *exporter) nulReplaced(r NULReplaced) {
	x.rep.NULReplaced++
	if x.onNUL != nil {
		x.onNUL(r)
	}
}

// malformed counts w and passes it to ExportOptions.OnMalformed.
func (x *exporter) malformed(w MalformedWritten) {
	x.rep.Malformed++
	if x.onMalformed != nil {
		x.onMalformed(w)
	}
}

// idleTTLText is a thread's own idle lifetime (engine.Thread.IdleTTL) as
// an "idle_ttl" member gives it: "" for none (the default), "never" for a
// negative one, else time.Duration's text ("72h0m0s", "1.5s").
func idleTTLText(ttl time.Duration) string {
	switch {
	case ttl == 0:
		return ""
	case ttl < 0:
		return idleTTLNever
	}
	return ttl.String()
}

// newExportRecord is the line of message m of thread (of resource), with
// the thread's title when not "".
func newExportRecord(thread, resource, title string, m engine.Message) exportRecord {
	rec := exportRecord{Thread: thread, Resource: resource, Title: title, ID: m.ID, Role: m.Role, Content: m.Content,
		Name: m.Name, ToolCallID: m.ToolCallID, Metadata: m.Metadata, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339Nano)}
	for _, c := range m.ToolCalls {
		c.Arguments = ingestedArguments(c.Arguments)
		rec.ToolCalls = append(rec.ToolCalls, exportCall(c))
	}
	return rec
}

// ingestedArguments returns a tool call's arguments a, as stored, as an
// import stores them (engine.ToolCallArgumentsOf): a string holding an
// object, which a build before that rule kept as the model's text, is
// written as the object, which is what ingest stores for it, so that a
// NUL its text escapes ("{\"a\":\"\\u0000\"}") is one of the object
// that scrubNUL replaces (as a string's it was written as stored, and
// ingest refused the object). Anything else is a as stored.
func ingestedArguments(a json.RawMessage) json.RawMessage {
	t := bytes.TrimLeft(a, " \t\r\n")
	if len(t) == 0 || t[0] != '"' {
		return a
	}
	v, err := engine.ToolCallArgumentsOf(a)
	if err != nil || len(v) == 0 || v[0] != '{' {
		return a
	}
	return v
}
