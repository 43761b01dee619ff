package server

import (
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/mnemo-go/mnemo/engine"
	"github.com/mnemo-go/mnemo/journal"
	"github.com/mnemo-go/mnemo/recall"
)

// The API's JSON: camelCase names, times in RFC 3339 (UTC), ids as strings.
// Request types carry omitempty on optional fields so that the OpenAPI
// document marks exactly the required ones.

// MessageIn is one message of an append request.
type MessageIn struct {
	ID         string            `json:"id,omitempty" jsonschema:"description=optional client id; a ULID is generated when empty. Appending the same id with the same content again is a no-op"`
	Role       string            `json:"role" jsonschema:"enum=user,enum=assistant,enum=tool"`
	Content    string            `json:"content,omitempty"`
	Name       string            `json:"name,omitempty" jsonschema:"description=speaker or tool name"`
	ToolCalls  []engine.ToolCall `json:"toolCalls,omitempty" jsonschema:"description=assistant messages only"`
	ToolCallID string            `json:"toolCallId,omitempty" jsonschema:"description=tool messages only: the call answered"`
	Metadata   map[string]any    `json:"metadata,omitempty" jsonschema:"description=a JSON object, filterable by recall"`
	CreatedAt  *time.Time        `json:"createdAt,omitempty" jsonschema:"description=when the turn was said (RFC 3339); defaults to the server clock; the zero time 0001-01-01T00:00:00Z and a time more than a day past the server clock are refused"`
}

// AppendBody is the body of POST /v1/threads/{thread}/messages.
type AppendBody struct {
	ResourceID string      `json:"resourceId,omitempty" jsonschema:"description=the thread's owner; must match a stored thread's; left out: the stored thread's or else the token's only resource; required when neither decides (an operator token or one of several resources)"`
	Messages   []MessageIn `json:"messages" jsonschema:"minItems=1"`
}

// ContextBody is the body of POST /v1/context (engine.LoadRequest).
type ContextBody struct {
	ThreadID    string          `json:"threadId"`
	ResourceID  string          `json:"resourceId,omitempty" jsonschema:"description=the thread's owner; left out: the stored thread's, or for a new thread the token's only resource; a new thread of an operator token or one of several resources needs it (else 404)"`
	Query       string          `json:"query,omitempty" jsonschema:"description=drives recall; empty means the newest user message; recorded in memctx.query even with recall off (the answer's notice then says nothing was recalled)"`
	RecentN     int             `json:"recentN,omitempty" jsonschema:"description=recent-window size; 0 means the server default, negative turns it off"`
	Recall      *recall.Options `json:"recall,omitempty" jsonschema:"description=recall options; absent means the server default (recall off unless the server config sets recall); topK 0 means the default (5)"`
	RunID       string          `json:"runId,omitempty" jsonschema:"description=names the run; left out means a generated ULID"`
	TokenBudget int             `json:"tokenBudget,omitempty" jsonschema:"minimum=0,description=estimated tokens (about 4 bytes each) that recalled turns and observations may add; 0 means no budget; negative is refused"`
	ReplaceRun  bool            `json:"replaceRun,omitempty"`
	At          *time.Time      `json:"at,omitempty" jsonschema:"description=when the question is asked (RFC 3339): the query's relative dates (yesterday; last week; two months ago) are resolved against it in whole days of the resource's time zone (UTC unless configured); defaults to the server clock (the zero time 0001-01-01T00:00:00Z is refused); recorded as memctx.queryAt"`
}

// ContextMessage is one message of a composed context, with provenance.
type ContextMessage struct {
	Role       string            `json:"role"`
	Content    string            `json:"content"`
	Name       string            `json:"name,omitempty"`
	ToolCalls  []engine.ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string            `json:"toolCallId,omitempty"`
	ThreadID   string            `json:"threadId"`
	Seq        int64             `json:"seq"`
	MessageID  string            `json:"messageId"`
	Reason     string            `json:"reason,omitempty" jsonschema:"description=hit, range or repair for a recalled turn; absent for the recent window"`
}

// Context is the answer of POST /v1/context: the memory part of a prompt
// and its memctx record.
type Context struct {
	RunID      string           `json:"runId"`
	System     string           `json:"system"`
	Messages   []ContextMessage `json:"messages"`
	Tools      []openai.Tool    `json:"tools"`
	PromptHash string           `json:"promptHash"`
	MemCtx     *journal.MemCtx  `json:"memctx,omitempty" jsonschema:"description=the run's provenance record; absent in a replay's original and counterfactual (the replay gives it once)"`
	// Notice says what of the request was not used: a query given while
	// recall was off (RecallOffNotice). Absent when everything was.
	Notice string `json:"notice,omitempty" jsonschema:"description=what of the request was not used: a query given while recall was off was recorded in memctx.query but recalled nothing; absent when everything was used"`
}

// RecallOffNotice is Context.Notice for a load given query, whose record
// is rec: when recall
// was off (no recall options, and none configured), the query was only
// recorded, in the run's memctx record (where erasure looks for what the run
// saw: docs/cli.md, "quoted by its query"), and nothing was recalled; turnOn says
// how to turn recall on. "" when no query was given or recall ran.
func RecallOffNotice(query string, rec *journal.MemCtx, turnOn string) string {
	if query == "" || rec == nil || rec.Options.TopK != 0 {
		return ""
	}
	return "recall is off (no recall options, and the configuration sets none): the query was recorded in the run's memctx record but nothing was recalled; " + turnOn + " to recall"
}

// ContextOf is c in the API's JSON (camelCase names; the promptHash
// included). `mnemo context --json` prints it too.
func ContextOf(c *engine.Context) *Context { return toContext(c) }

// ReplayOf is r in the API's JSON, the memctx record given once.
// `mnemo replay --json` prints it too.
func ReplayOf(r *engine.Replay) Replay {
	orig, cf := toContext(r.Original), toContext(r.Counterfactual)
	orig.MemCtx, cf.MemCtx = nil, nil
	return Replay{RunID: r.RunID, MemCtx: r.Record, Original: orig, Counterfactual: cf,
		Removed: nonNil(r.Removed), RemovedObservations: nonNil(r.RemovedObservations), RemovedWorkingMemory: r.RemovedWorkingMemory}
}

// RunInfoOf is a run listing entry in the API's JSON (createdAt in RFC 3339).
func RunInfoOf(ri journal.RunInfo) RunInfo {
	return RunInfo{RunID: ri.RunID, ThreadID: ri.ThreadID, ResourceID: ri.ResourceID, CreatedAt: time.UnixMilli(ri.CreatedAt).UTC()}
}

func toContext(c *engine.Context) *Context {
	if c == nil {
		return nil
	}
	out := &Context{RunID: c.RunID, System: c.System, Messages: make([]ContextMessage, len(c.Messages)), Tools: c.Tools, PromptHash: c.PromptHash, MemCtx: c.MemCtx}
	for i, m := range c.Messages {
		out.Messages[i] = ContextMessage{Role: m.Role, Content: m.Content, Name: m.Name, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID,
			ThreadID: m.ThreadID, Seq: m.Seq, MessageID: m.MessageID, Reason: m.Reason}
	}
	if out.Tools == nil {
		out.Tools = []openai.Tool{}
	}
	return out
}

// SearchBody is the body of POST /v1/search.
type SearchBody struct {
	ResourceID string          `json:"resourceId,omitempty" jsonschema:"description=the resource searched; left out: the thread's (threadId) or else the token's only resource; required when neither decides (an operator token or one of several resources)"`
	ThreadID   string          `json:"threadId,omitempty" jsonschema:"description=search this thread only (recall.scope thread when left out; refused with recall.scope resource); required with recall.scope thread"`
	Query      string          `json:"query" jsonschema:"minLength=1"`
	Recall     *recall.Options `json:"recall,omitempty" jsonschema:"description=topK 0 means the default (5)"`
	At         *time.Time      `json:"at,omitempty" jsonschema:"description=when the question is asked (RFC 3339): the query's relative dates (yesterday; last week; two months ago) are resolved against it in whole days of the resource's time zone (UTC unless configured); defaults to the server clock (the zero time 0001-01-01T00:00:00Z is refused)"`
}

// ThreadList is the answer of GET /v1/threads.
type ThreadList struct {
	Threads []engine.Thread `json:"threads"`
	// NextCursor, when present, is the cursor of the next page (GET
	// /v1/threads?cursor=): more threads follow. Absent on the last page.
	NextCursor string `json:"nextCursor,omitempty" jsonschema:"description=the cursor of the next page (?cursor=); absent on the last page"`
	// NextOffset (deprecated: page by nextCursor) is the offset of the
	// next page, on pages asked without a cursor; absent on the last page
	// and on pages asked by cursor.
	NextOffset int `json:"nextOffset,omitempty" jsonschema:"description=deprecated (use nextCursor): the offset of the next page; absent on the last page and on pages asked by cursor"`
}

// MessageList is the answer of GET /v1/threads/{thread}/messages.
type MessageList struct {
	Messages []engine.Message `json:"messages"`
	// NextFromSeq, when present, is the fromSeq of the next (newer) page.
	NextFromSeq int64 `json:"nextFromSeq,omitempty" jsonschema:"description=fromSeq of the next (newer) page; absent when the page reaches toSeq or the end"`
	// NextBeforeSeq, when present, is the beforeSeq of the next (older)
	// page of a request with beforeSeq.
	NextBeforeSeq int64 `json:"nextBeforeSeq,omitempty" jsonschema:"description=beforeSeq of the next (older) page of a request with beforeSeq; absent when no older message is within fromSeq"`
}

// RunInfo summarises one run in GET /v1/runs.
type RunInfo struct {
	RunID      string    `json:"runId"`
	ThreadID   string    `json:"threadId"`
	ResourceID string    `json:"resourceId"`
	CreatedAt  time.Time `json:"createdAt"`
}

// RunList is the answer of GET /v1/runs.
type RunList struct {
	Runs []RunInfo `json:"runs"`
	// NextCursor, when present, is the cursor of the next page (GET
	// /v1/runs?cursor=): more runs follow. Absent on the last page.
	NextCursor string `json:"nextCursor,omitempty" jsonschema:"description=the cursor of the next page (?cursor=); absent on the last page"`
}

// TurnRef names a stored turn by thread and seq.
type TurnRef struct {
	ThreadID string `json:"threadId"`
	Seq      int64  `json:"seq" jsonschema:"minimum=1"`
}

// ReplayBody is the body of POST /v1/runs/{run}/replay
// (engine.ReplayOptions); an empty object replays the run unchanged.
type ReplayBody struct {
	WithoutRecalled       bool      `json:"withoutRecalled,omitempty"`
	WithoutTurns          []TurnRef `json:"withoutTurns,omitempty"`
	WithoutObservations   bool      `json:"withoutObservations,omitempty"`
	WithoutObservationIDs []string  `json:"withoutObservationIds,omitempty"`
	WithoutWorkingMemory  bool      `json:"withoutWorkingMemory,omitempty"`
}

// Replay is the answer of POST /v1/runs/{run}/replay.
type Replay struct {
	RunID                string                   `json:"runId"`
	MemCtx               *journal.MemCtx          `json:"memctx"`
	Original             *Context                 `json:"original"`
	Counterfactual       *Context                 `json:"counterfactual"`
	Removed              []journal.Ref            `json:"removed"`
	RemovedObservations  []journal.ObservationRef `json:"removedObservations"`
	RemovedWorkingMemory bool                     `json:"removedWorkingMemory"`
}

// WorkingMemory is a working-memory state (GET and PUT
// …/working-memory).
type WorkingMemory struct {
	Key       string     `json:"key" jsonschema:"description=thread:<id> or resource:<id>"`
	Mode      string     `json:"mode" jsonschema:"enum=schema,enum=template"`
	Content   string     `json:"content" jsonschema:"description=compact JSON object (schema mode) or markdown (template mode)"`
	Version   int64      `json:"version" jsonschema:"description=0 when never written"`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
	Changed   *bool      `json:"changed,omitempty" jsonschema:"description=PUT only: false when the update left the content as it was"`
}

// WorkingMemoryUpdate is the body of PUT …/working-memory: exactly one of
// content (the whole new state) and patch (a JSON Merge Patch, schema mode).
type WorkingMemoryUpdate struct {
	Content *string        `json:"content,omitempty"`
	Patch   map[string]any `json:"patch,omitempty"`
}

// ObservationList is the answer of the observations routes.
type ObservationList struct {
	Observations []Observation `json:"observations"`
}

// Observation is one observation or reflection with its source range.
type Observation struct {
	ID            string     `json:"id"`
	ThreadID      string     `json:"threadId"`
	ResourceID    string     `json:"resourceId"`
	FromSeq       int64      `json:"fromSeq"`
	ToSeq         int64      `json:"toSeq"`
	Level         string     `json:"level"`
	Content       string     `json:"content"`
	Sources       []string   `json:"sources,omitempty"`
	Untrusted     bool       `json:"untrusted"`
	CreatedAt     time.Time  `json:"createdAt"`
	RetiredAt     *time.Time `json:"retiredAt,omitempty"`
	InvalidatedAt *time.Time `json:"invalidatedAt,omitempty"`
}

// EraseResult is the answer of the DELETE routes.
type EraseResult struct {
	Messages       []string `json:"messages"`
	NotFound       []string `json:"notFound,omitempty"`
	Threads        []string `json:"threads,omitempty"`
	Invalidated    []string `json:"invalidated,omitempty"`
	MemCtxScrubbed int      `json:"memctxScrubbed"`
	// Runs counts the memctx records of deleted threads' runs removed.
	Runs          int `json:"runs"`
	WorkingMemory int `json:"workingMemory"`
	// WorkingMemoryInvalidated counts working-memory versions removed
	// because the run that wrote them saw an erased turn.
	WorkingMemoryInvalidated int `json:"workingMemoryInvalidated"`
	Embeddings               int `json:"embeddings"`
	// IndexesRebuilt says the purge rebuilt the database's indexes (after
	// a thread or resource erasure, on SQLite), so no index page keeps a
	// piece of an erased thread or resource id (engine.EraseResult).
	IndexesRebuilt bool `json:"indexesRebuilt,omitempty"`
	// Vacuumed says why the purge rewrote the SQLite file with VACUUM
	// (engine.EraseResult.Vacuumed: "residue", "too-large" or
	// "texts-unknown"); absent when it did not.
	Vacuumed string `json:"vacuumed,omitempty" jsonschema:"enum=residue,enum=too-large,enum=texts-unknown"`
	// PurgeIncomplete says why the physical purge is unfinished (it is
	// retried); the erased data is unreadable already.
	PurgeIncomplete string `json:"purgeIncomplete,omitempty"`
	// KeptDamaged names the damaged database files that a salvage kept in
	// the data directory (mnemo.db.damaged-<UTC time>, then its kept -wal
	// and -shm, each its own entry), and the damaged
	// write-ahead logs an open kept (mnemo.db-wal.damaged-<UTC time>) with
	// their -shm copies (engine.EraseResult.KeptDamaged): no erasure
	// reaches them.
	KeptDamaged []string `json:"keptDamaged,omitempty"`
	// Warning is set with KeptDamaged: those files may still hold what was
	// erased, until the operator deletes them.
	Warning string `json:"warning,omitempty"`
}

// Health is the answer of GET /healthz.
type Health struct {
	Status  string `json:"status" jsonschema:"enum=ok"`
	Version string `json:"version"`
}

// AppendResult is the answer of POST /v1/threads/{thread}/messages.
type AppendResult struct {
	ThreadID   string   `json:"threadId"`
	ResourceID string   `json:"resourceId"`
	Seqs       []int64  `json:"seqs" jsonschema:"description=the seq of each request message, in request order"`
	IDs        []string `json:"ids" jsonschema:"description=the id of each request message (generated ids included)"`
	Stored     int      `json:"stored"`
	Duplicates int      `json:"duplicates"`
	Created    bool     `json:"created" jsonschema:"description=the thread was created by this call"`
}
